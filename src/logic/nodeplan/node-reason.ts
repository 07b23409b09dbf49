/**
 * The node-side reconcilability check and the reason texts the daemon writes to its Node
 * (docs/reference/daemon.md §7.2 step 3, docs/reference/vectors.md §B.1). The reason annotation
 * holds at most 2000 characters (upstream formats it with %.2000s).
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  checkReconcilable,
  describeReconcileError,
  type ReconcileError,
  type ReconcileOverrides,
} from '../render/reconcile.js';

export type NodeReconcileError =
  /** IsRenderedConfigReconcilable failed. */
  | {
      readonly kind: 'Config';
      readonly oldConfig: string;
      readonly newConfig: string;
      readonly error: ReconcileError;
    }
  /** The node's /proc/sys/crypto/fips_enabled differs from the new config's fips. */
  | { readonly kind: 'NodeFips'; readonly oldConfig: string; readonly newConfig: string };

export interface NodeReconcileOptions {
  /** FIPS as the node reports it; undefined when the node has no fips_enabled file (check skipped). */
  readonly nodeFips?: boolean;
  readonly overrides?: ReconcileOverrides;
}

/** upstream reconcilable(): the config check, then the node's FIPS state against the new config. */
export function checkNodeReconcilable(
  oldMc: MachineConfig,
  newMc: MachineConfig,
  options: NodeReconcileOptions = {},
): Result<void, NodeReconcileError> {
  const oldConfig = oldMc.metadata.name ?? '';
  const newConfig = newMc.metadata.name ?? '';
  const r = checkReconcilable(oldMc, newMc, options.overrides ?? {});
  if (!r.ok) return err({ kind: 'Config', oldConfig, newConfig, error: r.error });
  if (options.nodeFips !== undefined && options.nodeFips !== (newMc.spec?.fips === true))
    return err({ kind: 'NodeFips', oldConfig, newConfig });
  return ok(undefined);
}

/** `can't reconcile config <old> with <new>: …`, the Unreconcilable reason. */
export function describeNodeReconcileError(e: NodeReconcileError): string {
  const prefix = `can't reconcile config ${e.oldConfig} with ${e.newConfig}`;
  switch (e.kind) {
    case 'Config':
      return `${prefix}: configs ${e.oldConfig}, ${e.newConfig} are not reconcilable: ${describeReconcileError(e.error)}`;
    case 'NodeFips':
      return `${prefix}: detected change to FIPS flag; refusing to modify FIPS on a running cluster`;
  }
}

export const MaxReasonLength = 2000;

/** Go's `%.2000s`: the first 2000 characters (runes, not UTF-16 units or bytes). */
export function truncateReason(reason: string): string {
  let count = 0;
  let end = 0;
  for (const ch of reason) {
    if (count === MaxReasonLength) return reason.slice(0, end);
    count++;
    end += ch.length;
  }
  return reason;
}
