/**
 * The node supervisor: what turns a node folder into a machine that boots, runs a kubelet and a
 * machine config daemon, and reboots when asked (docs/reference/architecture.md §3, §6,
 * docs/reference/firstboot.md §8).
 *
 * - `createNode`: a fresh disk from the boot image, then, given a (pointer) Ignition config, the
 *   real Ignition provisions it as a first boot's initramfs would.
 * - `NodeSupervisor.run`: boots, and until stopped: watches for a reboot request (written by the
 *   host's Rebooter) and restarts a daemon that exits without one.
 * - A boot: the firmware boots the default deployment; while the encapsulated config
 *   `/etc/ignition-machine-config-encapsulated.json` exists the first-boot step runs (a reboot it
 *   asks for happens before the kubelet ever starts); then the kubelet gets its identity (TLS
 *   bootstrapping from the served bootstrap kubeconfig, the first time), registers the Node Ready
 *   and the daemon starts with that identity, its output appended to `<dir>/daemon.log`.
 * - A reboot: the Node goes NotReady, the daemon is stopped, the staged OS change is deployed,
 *   and the node boots again.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type {
  BootedOs,
  NodeDefinition,
  NodeMachine,
  ProvisionResult,
} from '../ports/node-machine.js';
import type { KubeletHealthEndpoint } from '../ports/kubelet-health.js';
import type { LaunchedProcess, ProcessLauncher } from '../ports/process-launcher.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { DaemonPodKeeper } from './daemon-pod-keeper.js';
import { SimulatedKubelet } from './kubelet.js';
import type { NodeCredentials, NodeIdentity } from './kubelet-credentials.js';
import { errorText } from '../lib/error-text.js';

/**
 * The file Ignition writes from the served config that makes the first-boot step run
 * (docs/reference/firstboot.md §8).
 */
export const EncapsulatedConfigPath = '/etc/ignition-machine-config-encapsulated.json';

type CommandPlaceholder = 'name' | 'root' | 'dir' | 'kubeconfig' | 'kubelet-healthz';

/**
 * Substitutes `{name}`, `{root}`, `{dir}`, `{kubeconfig}` and `{kubelet-healthz}` (the kubelet's
 * healthz URL; upstream's default when the node serves none) in a command line.
 */
export function expandCommand(
  argv: readonly string[],
  values: Readonly<Record<Exclude<CommandPlaceholder, 'kubelet-healthz'>, string>> & {
    readonly 'kubelet-healthz'?: string;
  },
): string[] {
  const all: Record<CommandPlaceholder, string> = {
    'kubelet-healthz': UpstreamKubeletHealthzUrl,
    ...values,
  };
  return argv.map((a) =>
    a.replace(
      /\{(name|root|dir|kubeconfig|kubelet-healthz)\}/g,
      (_, key: CommandPlaceholder) => all[key],
    ),
  );
}

/** Upstream's `--kubelet-healthz-endpoint` default. */
const UpstreamKubeletHealthzUrl = 'http://localhost:10248/healthz';

const isAborted = (signal?: AbortSignal): boolean => signal?.aborted === true;

export interface CreateNodeOptions {
  /** An Ignition config (usually the pool's pointer config) to provision the node with. */
  readonly ignitionConfig?: string;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}

export class ProvisioningError extends Error {
  override readonly name = 'ProvisioningError';
  readonly result: ProvisionResult;

  constructor(result: ProvisionResult) {
    super(`Ignition failed in stage ${result.failedStage ?? '?'}; its output:\n${result.output}`);
    this.result = result;
  }
}

/** Installs the boot image into a fresh node folder and provisions it with Ignition if given. */
export async function createNode(
  machine: NodeMachine,
  definition: NodeDefinition,
  options: CreateNodeOptions,
): Promise<ProvisionResult | undefined> {
  await machine.install(definition, options.signal);
  options.log.info('installed boot image', {
    node: definition.name,
    repo: definition.bootImage.repo,
    ref: definition.bootImage.ref,
  });
  if (options.ignitionConfig === undefined) return undefined;
  const result = await machine.provision(options.ignitionConfig, options.signal);
  if (!result.ok) throw new ProvisioningError(result);
  options.log.info('provisioned by Ignition', {
    node: definition.name,
    enabledUnits: result.enabledUnits,
  });
  return result;
}

export interface NodeSupervisorOptions {
  readonly machine: NodeMachine;
  readonly launcher: ProcessLauncher;
  readonly clock: Clock;
  readonly log: Logger;
  /**
   * Where the node identity comes from; without one (or when it yields none) there is no
   * kubelet (no Node object).
   */
  readonly identity?: NodeIdentity;
  /** Creates workload pods (an admin identity). */
  readonly workloadClient?: ResourceClient;
  /** The kubelet's healthz endpoint: healthy from registration until the node goes down. */
  readonly kubeletHealth?: KubeletHealthEndpoint;
  /** The daemon command line (placeholders as in expandCommand); none: no daemon. */
  readonly daemonCommand?: readonly string[];
  /** Shows the daemon as its DaemonSet's pod on this node (pod, status, container record). */
  readonly daemonPod?: DaemonPodKeeper;
  readonly firstbootCommand?: readonly string[];
  readonly heartbeatMs?: number;
  /** How often the reboot channel and the daemon are looked at. */
  readonly pollMs?: number;
  readonly daemonStopGraceMs?: number;
  readonly daemonRestartDelayMs?: number;
  readonly firstbootRetryMs?: number;
}

export class NodeSupervisor {
  readonly #o: NodeSupervisorOptions;
  #definition: NodeDefinition | undefined;
  #kubelet: SimulatedKubelet | undefined;
  #credentials: NodeCredentials | undefined;
  #daemon: LaunchedProcess | undefined;
  #daemonRestartAt = 0;
  #boots = 0;

  constructor(options: NodeSupervisorOptions) {
    this.#o = options;
  }

  /** How many times the node has booted under this supervisor. */
  get boots(): number {
    return this.#boots;
  }

  get daemonPid(): number | undefined {
    return this.#daemon?.running() === true ? this.#daemon.pid : undefined;
  }

  async #def(): Promise<NodeDefinition> {
    this.#definition ??= await this.#o.machine.definition();
    return this.#definition;
  }

  #log(): Logger {
    return this.#o.log;
  }

  /** Boots the node and supervises it until `signal` aborts; then shuts it down cleanly. */
  async run(signal: AbortSignal): Promise<void> {
    const reaped = await this.#o.machine.reapStaleProcesses();
    if (reaped.length > 0)
      this.#log().warn('stopped processes left by an earlier supervisor', { pids: reaped });
    await this.boot(signal);
    const pollMs = this.#o.pollMs ?? 250;
    while (!signal.aborted) {
      const request = await this.#o.machine.takeRebootRequest();
      if (request !== undefined) {
        await this.reboot(request.reason, signal);
        continue;
      }
      await this.#watchDaemon();
      if ((await this.#o.daemonPod?.sync()) === 'recreated' && this.#daemon !== undefined) {
        // Its pod was deleted: the container goes with it and starts again in the new pod.
        this.#log().info('daemon pod replaced; restarting the daemon in it');
        await this.#stopDaemon();
        await this.#startDaemon();
      }
      await this.#o.clock.sleep(pollMs, signal).catch(() => undefined);
    }
    await this.shutdown('the node supervisor is stopping');
  }

  /**
   * One boot: firmware, first-boot step (rebooting as often as it asks), kubelet, daemon. Resolves
   * once the daemon has started.
   */
  async boot(signal?: AbortSignal): Promise<BootedOs> {
    const def = await this.#def();
    for (;;) {
      const booted = await this.#o.machine.boot();
      this.#boots += 1;
      this.#log().info('booted', {
        node: def.name,
        deployment: `${booted.checksum}.${booted.serial}`,
        version: booted.version,
        kernelArguments: booted.kernelArguments,
      });
      const firstboot = await this.#firstboot(def, signal);
      if (firstboot === 'reboot') {
        await this.#finalize();
        continue;
      }
      if (signal?.aborted === true) return booted;
      const credentials = await this.#obtainCredentials(signal);
      if (isAborted(signal)) return booted;
      if (credentials !== undefined) {
        this.#kubelet ??= new SimulatedKubelet({
          definition: def,
          nodeClient: credentials.client,
          ...(this.#o.workloadClient === undefined
            ? {}
            : { workloadClient: this.#o.workloadClient }),
          clock: this.#o.clock,
          log: this.#o.log,
          heartbeatMs: this.#o.heartbeatMs ?? 10_000,
        });
        await this.#register(this.#kubelet, booted, signal);
        this.#o.kubeletHealth?.setHealthy(true);
      }
      if (credentials !== undefined) this.#o.daemonPod?.useKubelet(credentials.client);
      await this.#o.daemonPod?.sync(true);
      await this.#startDaemon();
      return booted;
    }
  }

  /**
   * The kubelet's identity, obtained once (retrying, as a restarting kubelet does, while the API
   * server cannot be reached or the CSR is refused); undefined when the node has no way to one.
   */
  async #obtainCredentials(signal?: AbortSignal): Promise<NodeCredentials | undefined> {
    const identity = this.#o.identity;
    if (identity === undefined || this.#credentials !== undefined) return this.#credentials;
    for (let delay = 1_000; ; delay = Math.min(delay * 2, 30_000)) {
      try {
        this.#credentials = await identity.obtain(signal);
        if (this.#credentials === undefined)
          this.#log().warn('no kubeconfig and no bootstrap kubeconfig: the kubelet does not start');
        return this.#credentials;
      } catch (e) {
        if (isAborted(signal)) return undefined;
        this.#log().warn('obtaining the node identity failed; retrying', {
          error: errorText(e),
          retryInMs: delay,
        });
      }
      await this.#o.clock.sleep(delay, signal).catch(() => undefined);
      if (isAborted(signal)) return undefined;
    }
  }

  /** Registers the Node, retrying (as a kubelet does) while the API server cannot be reached. */
  async #register(
    kubelet: SimulatedKubelet,
    booted: BootedOs,
    signal?: AbortSignal,
  ): Promise<void> {
    for (let delay = 1_000; ; delay = Math.min(delay * 2, 30_000)) {
      try {
        await kubelet.register(booted);
        return;
      } catch (e) {
        if (isAborted(signal)) return;
        this.#log().warn('registering the node failed; retrying', {
          error: errorText(e),
          retryInMs: delay,
        });
      }
      await this.#o.clock.sleep(delay, signal).catch(() => undefined);
      if (isAborted(signal)) return;
    }
  }

  /** Runs the first-boot step while the encapsulated config exists; 'reboot' if it asked for one. */
  async #firstboot(def: NodeDefinition, signal?: AbortSignal): Promise<'reboot' | 'done'> {
    const machine = this.#o.machine;
    if (!(await machine.exists(EncapsulatedConfigPath))) return 'done';
    const command = this.#o.firstbootCommand;
    if (command === undefined) {
      this.#log().warn(
        'first boot: no firstboot command configured; the kubelet starts without it',
        {
          node: def.name,
          encapsulated: EncapsulatedConfigPath,
        },
      );
      return 'done';
    }
    for (;;) {
      const argv = this.#expand(def, command);
      this.#log().info('first boot: running the firstboot step', { node: def.name, argv });
      const proc = await this.#o.launcher.launch(argv, { logFile: machine.logFile('firstboot') });
      await machine.recordProcesses({ firstboot: proc.pid });
      const onAbort = () => void proc.stop(this.#o.daemonStopGraceMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const exit = await proc.exited;
      signal?.removeEventListener('abort', onAbort);
      await machine.recordProcesses({});
      const request = await machine.takeRebootRequest();
      if (request !== undefined) {
        this.#log().info('first boot: rebooting', { node: def.name, reason: request.reason });
        return 'reboot';
      }
      if (exit.code === 0 || isAborted(signal)) return 'done';
      this.#log().error('first boot: the firstboot step failed; retrying', {
        node: def.name,
        code: exit.code,
        signal: exit.signal,
      });
      await this.#o.clock.sleep(this.#o.firstbootRetryMs ?? 60_000, signal).catch(() => undefined);
      if (isAborted(signal)) return 'done';
    }
  }

  #expand(def: NodeDefinition, argv: readonly string[]): string[] {
    return expandCommand(argv, {
      name: def.name,
      root: this.#o.machine.root,
      dir: this.#o.machine.dir,
      kubeconfig: this.#credentials?.kubeconfig ?? def.nodeKubeconfig ?? '',
      ...(this.#o.kubeletHealth === undefined
        ? {}
        : { 'kubelet-healthz': this.#o.kubeletHealth.url }),
    });
  }

  async #startDaemon(): Promise<void> {
    const command = this.#o.daemonCommand;
    if (command === undefined) return;
    const def = await this.#def();
    const argv = this.#expand(def, command);
    await this.#o.daemonPod?.beginInstance();
    this.#daemon = await this.#o.launcher.launch(argv, {
      logFile: this.#o.machine.logFile('daemon'),
    });
    await this.#o.machine.recordProcesses({ daemon: this.#daemon.pid });
    await this.#o.daemonPod?.running(this.#daemon.pid);
    this.#log().info('daemon started', { node: def.name, pid: this.#daemon.pid, argv });
  }

  /** Restarts a daemon that exited without asking for a reboot, after a delay. */
  async #watchDaemon(): Promise<void> {
    const daemon = this.#daemon;
    if (daemon === undefined || daemon.running()) return;
    const now = this.#o.clock.now();
    if (this.#daemonRestartAt === 0) {
      const exit = await daemon.exited;
      await this.#o.daemonPod?.finished(exit);
      this.#daemonRestartAt = now + (this.#o.daemonRestartDelayMs ?? 5_000);
      this.#log().warn('daemon exited; restarting it', {
        node: (await this.#def()).name,
        pid: daemon.pid,
        code: exit.code,
        signal: exit.signal,
      });
      return;
    }
    if (now < this.#daemonRestartAt) return;
    this.#daemonRestartAt = 0;
    await this.#startDaemon();
  }

  async #stopDaemon(): Promise<void> {
    const daemon = this.#daemon;
    this.#daemon = undefined;
    this.#daemonRestartAt = 0;
    if (daemon === undefined) return;
    const exit = await daemon.stop(this.#o.daemonStopGraceMs ?? 10_000);
    await this.#o.machine.recordProcesses({});
    await this.#o.daemonPod?.finished(exit);
    this.#log().info('daemon stopped', { pid: daemon.pid, code: exit.code, signal: exit.signal });
  }

  /** Reboots: NotReady, daemon stopped, staged OS change deployed, boot again. */
  async reboot(reason: string, signal?: AbortSignal): Promise<BootedOs> {
    const def = await this.#def();
    this.#log().info('rebooting', { node: def.name, reason });
    await this.#notReady(`rebooting: ${reason}`);
    await this.#stopDaemon();
    await this.#finalize();
    return this.boot(signal);
  }

  /** Powers the node off: NotReady, daemon stopped, a staged OS change deployed. */
  async shutdown(reason: string): Promise<void> {
    await this.#notReady(reason);
    await this.#kubelet?.stopHeartbeats();
    await this.#stopDaemon();
    await this.#finalize();
    this.#log().info('node shut down', { reason });
  }

  /**
   * Deploys the staged OS change. If that fails the machine boots what it booted before, as a host
   * whose ostree-finalize-staged failed does; the daemon then finds the wrong OS and says so.
   */
  async #finalize(): Promise<void> {
    try {
      if (await this.#o.machine.shutdown()) this.#log().info('deployed the staged OS change');
    } catch (e) {
      this.#log().error('deploying the staged OS change failed; the previous deployment boots', {
        error: errorText(e),
      });
    }
  }

  async #notReady(message: string): Promise<void> {
    this.#o.kubeletHealth?.setHealthy(false);
    try {
      await this.#kubelet?.notReady(message);
    } catch (e) {
      this.#log().warn('could not report the node NotReady', { error: String(e) });
    }
  }
}
