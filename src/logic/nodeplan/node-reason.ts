/**
 * The node-side reconcilability check and the reason texts the daemon writes to its Node
 * (docs/reference/daemon.md §7.2 step 3, docs/reference/vectors.md §B.1). The reason annotation
 * holds at most 2000 characters (upstream formats it with %.2000s).
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { compactIgnition } from '../../ignition/serialize.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  checkReconcilable,
  describeReconcileError,
  unreconcilableReason,
  type ReconcileError,
  type ReconcileOverrides,
} from '../render/reconcile.js';
import type { NodeConfig } from './node-config.js';

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

/**
 * checkNodeReconcilable on configs already parsed (the update plan parses each config once):
 * the same reasons, from the same rules (unreconcilableReason), in the same order.
 */
export function checkParsedNodeReconcilable(
  from: NodeConfig,
  to: NodeConfig,
  options: NodeReconcileOptions = {},
): Result<void, NodeReconcileError> {
  const reason = unreconcilableReason(
    compactIgnition(from.ignition),
    compactIgnition(to.ignition),
    { old: from.fips, new: to.fips },
    options.overrides ?? {},
  );
  if (reason !== undefined)
    return err({
      kind: 'Config',
      oldConfig: from.name,
      newConfig: to.name,
      error: { kind: 'Unreconcilable', oldConfig: from.name, newConfig: to.name, reason },
    });
  if (options.nodeFips !== undefined && options.nodeFips !== to.fips)
    return err({ kind: 'NodeFips', oldConfig: from.name, newConfig: to.name });
  return ok(undefined);
}

/** What is wrong, without the `can't reconcile config <old> with <new>: ` prefix. */
function nodeReconcileDetail(e: NodeReconcileError): string {
  switch (e.kind) {
    case 'Config':
      return `configs ${e.oldConfig}, ${e.newConfig} are not reconcilable: ${describeReconcileError(e.error)}`;
    case 'NodeFips':
      return 'detected change to FIPS flag; refusing to modify FIPS on a running cluster';
  }
}

/** `can't reconcile config <old> with <new>: …`, the Unreconcilable reason. */
export function describeNodeReconcileError(e: NodeReconcileError): string {
  return `can't reconcile config ${e.oldConfig} with ${e.newConfig}: ${nodeReconcileDetail(e)}`;
}

/** The MachineConfigNode `UpdatePrepared=Unknown` message of an unreconcilable update. */
export function describeIncompatibleConfigs(e: NodeReconcileError): string {
  return `Update Failed compatibility validation. MachineConfigs ${e.oldConfig} and ${e.newConfig} are not compatible. Err: ${nodeReconcileDetail(e)}`;
}

const MaxReasonLength = 2000;

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
