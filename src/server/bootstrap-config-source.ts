/**
 * Bootstrap mode's ConfigSource (upstream `bootstrap_server.go`, docs/reference/mcs.md §6.4): serves
 * `master` and `arbiter` only, from the files `mco bootstrap` wrote:
 * `machine-pools/<pool>.yaml` (its `status.configuration.name` names the config; missing → 404),
 * `machine-configs/<name>.yaml` (missing → 404) and
 * `controller-config/machine-config-controller.yaml` (missing → error), plus the kubeconfig file
 * served verbatim.
 */
import { parse as parseYaml } from 'yaml';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import type { ConfigSource, ConfigSourceError, ServingInputs } from './config-source.js';
import { errorText } from '../lib/error-text.js';

/** A file's bytes and a token that changes whenever the file does. */
export interface VersionedBytes {
  readonly bytes: Uint8Array;
  readonly version: string;
}

/** Reads files under the bootstrap folder; undefined when the file does not exist. */
interface BootstrapFiles {
  read(relativePath: string): Promise<VersionedBytes | undefined>;
}

export interface BootstrapConfigSourceOptions {
  readonly files: BootstrapFiles;
  /** The `--bootstrap-kubeconfig` file; undefined when it is missing. */
  readonly kubeconfig: () => Promise<VersionedBytes | undefined>;
}

const BootstrapPools: readonly string[] = ['master', 'arbiter'];

const BootstrapPaths = {
  pool: (pool: string) => `machine-pools/${pool}.yaml`,
  machineConfig: (name: string) => `machine-configs/${name}.yaml`,
  controllerConfig: 'controller-config/machine-config-controller.yaml',
} as const;

type Parsed<T> = Result<T, ConfigSourceError>;

export class BootstrapConfigSource implements ConfigSource {
  readonly #options: BootstrapConfigSourceOptions;
  /** Parsed YAML by path, reused while the file's version holds. */
  readonly #parsed = new Map<string, { version: string; value: unknown }>();

  constructor(options: BootstrapConfigSourceOptions) {
    this.#options = options;
  }

  #parse<T>(path: string, file: VersionedBytes): Parsed<T> {
    const cached = this.#parsed.get(path);
    if (cached?.version === file.version) return ok(cached.value as T);
    try {
      const value: unknown = parseYaml(new TextDecoder().decode(file.bytes), { version: '1.1' });
      if (typeof value !== 'object' || value === null)
        return err({ kind: 'Unreadable', what: path, message: 'not a YAML object' });
      this.#parsed.set(path, { version: file.version, value });
      return ok(value as T);
    } catch (e) {
      return err({
        kind: 'Unreadable',
        what: path,
        message: errorText(e),
      });
    }
  }

  async #read(path: string): Promise<Result<VersionedBytes | undefined, ConfigSourceError>> {
    try {
      return ok(await this.#options.files.read(path));
    } catch (e) {
      return err({
        kind: 'Unreadable',
        what: path,
        message: errorText(e),
      });
    }
  }

  async getConfig(pool: string): Promise<Result<ServingInputs | undefined, ConfigSourceError>> {
    if (!BootstrapPools.includes(pool)) return err({ kind: 'Refused', pool });
    const poolFile = await this.#read(BootstrapPaths.pool(pool));
    if (!poolFile.ok) return poolFile;
    if (poolFile.value === undefined) return ok(undefined);
    const mcp = this.#parse<MachineConfigPool>(BootstrapPaths.pool(pool), poolFile.value);
    if (!mcp.ok) return mcp;

    const name = mcp.value.status?.configuration?.name ?? '';
    const mcPath = BootstrapPaths.machineConfig(name);
    const mcFile = await this.#read(mcPath);
    if (!mcFile.ok) return mcFile;
    if (mcFile.value === undefined) return ok(undefined);
    const mc = this.#parse<MachineConfig>(mcPath, mcFile.value);
    if (!mc.ok) return mc;

    const ccFile = await this.#read(BootstrapPaths.controllerConfig);
    if (!ccFile.ok) return ccFile;
    if (ccFile.value === undefined) return err({ kind: 'ControllerConfigNotFound' });
    const cc = this.#parse<ControllerConfig>(BootstrapPaths.controllerConfig, ccFile.value);
    if (!cc.ok) return cc;

    const kubeconfig = await this.#options.kubeconfig();
    if (kubeconfig === undefined)
      return err({ kind: 'Unreadable', what: 'the bootstrap kubeconfig', message: 'no such file' });
    return ok({
      pool,
      machineConfig: mc.value,
      controllerConfig: cc.value,
      kubeconfig: kubeconfig.bytes,
      mode: 'bootstrap',
      revision: [poolFile.value, mcFile.value, ccFile.value, kubeconfig]
        .map((f) => f.version)
        .join('|'),
    });
  }
}
