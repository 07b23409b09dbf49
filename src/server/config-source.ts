/**
 * ConfigSource: where the machine config server gets what it serves for a pool (upstream's
 * `Server` interface, docs/reference/mcs.md §6.3–6.4). Two implementations: the cluster one reads the
 * pool, its rendered MachineConfig and the ControllerConfig through the API; the bootstrap one
 * reads the files `mco bootstrap` wrote. Both hand back the inputs; the HTTP layer assembles the
 * Ignition config from them (assemble-served-config.ts), so both serve exactly the same shape.
 */
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { Result } from '../lib/result.js';

/** A file added to the served config verbatim (bootstrap `--bootstrap-certs`). */
interface ExtraFile {
  readonly path: string;
  readonly contents: Uint8Array;
}

/** Everything one `/config/<pool>` answer is built from. */
export interface ServingInputs {
  readonly pool: string;
  /** The rendered MachineConfig to serve. */
  readonly machineConfig: MachineConfig;
  readonly controllerConfig: ControllerConfig;
  /** `/etc/kubernetes/kubeconfig` on the node; not appended when undefined. */
  readonly kubeconfig?: Uint8Array;
  readonly extraFiles?: readonly ExtraFile[];
  /**
   * Bootstrap mode encapsulates with the internal spec whatever the client asked for (upstream passes no
   * version there); the cluster server uses the negotiated one.
   */
  readonly mode: 'cluster' | 'bootstrap';
  /**
   * Changes whenever anything above changes: the server caches the bytes it serves per
   * (revision, spec version).
   */
  readonly revision: string;
}

export type ConfigSourceError =
  /** Bootstrap mode serves only master and arbiter. */
  | { readonly kind: 'Refused'; readonly pool: string }
  | { readonly kind: 'PoolNotFound'; readonly pool: string }
  | { readonly kind: 'ConfigNotFound'; readonly name: string }
  | { readonly kind: 'ControllerConfigNotFound' }
  /** The source has not finished its first read of the cluster yet. */
  | { readonly kind: 'NotReady' }
  | { readonly kind: 'Unreadable'; readonly what: string; readonly message: string };

export function describeConfigSourceError(e: ConfigSourceError): string {
  switch (e.kind) {
    case 'Refused':
      return `refusing to serve bootstrap configuration to pool "${e.pool}"`;
    case 'PoolNotFound':
      return `could not fetch pool. err: machineconfigpool.machineconfiguration.openshift.io "${e.pool}" not found`;
    case 'ConfigNotFound':
      return `could not fetch config ${e.name}, err: machineconfig.machineconfiguration.openshift.io "${e.name}" not found`;
    case 'ControllerConfigNotFound':
      return 'could not get controllerconfig: controllerconfig.machineconfiguration.openshift.io "machine-config-controller" not found';
    case 'NotReady':
      return 'the cluster cache has not synced yet';
    case 'Unreadable':
      return `could not read ${e.what}: ${e.message}`;
  }
}

/**
 * `ok(undefined)` means "no config" (upstream's nil config: 404, bootstrap mode with a missing
 * pool or MachineConfig file); an error is a 500.
 */
export interface ConfigSource {
  getConfig(
    pool: string,
    signal?: AbortSignal,
  ): Promise<Result<ServingInputs | undefined, ConfigSourceError>>;
}
