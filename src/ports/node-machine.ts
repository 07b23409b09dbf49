/**
 * NodeMachine: the hardware of a simulated node as its supervisor (src/simulator) sees it — a
 * disk holding an OSTree sysroot and a firmware that boots the default deployment. The supervisor
 * decides when to install, provision, boot and shut down; the machine does it (the ostree adapter:
 * src/adapters/ostree-node-machine.ts).
 */

/** What a node is made from: an OSTree commit (a ref of a local repository). */
interface BootImage {
  readonly repo: string;
  readonly ref: string;
  /** The OS image pull spec this commit is, when it came from one (recorded in the origin). */
  readonly image?: string;
}

/** A node's settings, kept in its folder so `mco node run` can boot it again. */
export interface NodeDefinition {
  readonly name: string;
  /** Extra labels the node registers with (none a node may not set on itself). */
  readonly labels: Readonly<Record<string, string>>;
  readonly zone?: string;
  readonly bootImage: BootImage;
  /** Kernel arguments of the first deployment. */
  readonly kernelArguments: readonly string[];
  /**
   * A node identity (kubeconfig path) made beforehand; without one the kubelet bootstraps its own
   * from `/etc/kubernetes/kubeconfig` into `/var/lib/kubelet/kubeconfig`.
   */
  readonly nodeKubeconfig?: string;
  /** A kubeconfig allowed to create the node's workload pods (they stand for a ReplicaSet's). */
  readonly adminKubeconfig?: string;
  /**
   * The kubeconfig the default daemon reads the cluster with (the `machine-config-daemon`
   * ServiceAccount's); without one it uses the node identity, which RBAC does not let read
   * MachineConfigs.
   */
  readonly daemonKubeconfig?: string;
  /** How many workload pods run on the node. */
  readonly pods: number;
  /** The daemon command line; `{name}`, `{root}`, `{dir}`, `{kubeconfig}` are substituted. */
  readonly daemonCommand?: readonly string[];
  /** The first-boot step, run while the encapsulated config exists, before the kubelet. */
  readonly firstbootCommand?: readonly string[];
  /** Where the default daemon serves its metrics (127.0.0.1); none: it serves none. */
  readonly daemonMetricsPort?: number;
}

/** One boot, as recorded by the firmware. */
export interface BootedOs {
  readonly checksum: string;
  readonly serial: number;
  /** The deployment folder, relative to the sysroot. */
  readonly deployment: string;
  readonly kernelArguments: readonly string[];
  readonly version?: string;
  readonly image?: string;
  readonly bootId: string;
  /** `PRETTY_NAME` of the booted /etc/os-release (the Node's osImage). */
  readonly osImage: string;
  /** `ID` of the booted os-release. */
  readonly osId: string;
  readonly kernelVersion: string;
}

export interface ProvisionResult {
  readonly ok: boolean;
  readonly failedStage?: string;
  /** Everything Ignition printed, stage by stage. */
  readonly output: string;
  /** Units Ignition enabled (its preset file), now enabled with `systemctl --root preset`. */
  readonly enabledUnits: readonly string[];
}

export interface RebootRequestRecord {
  readonly reason: string;
  readonly requestedAt: string;
}

export interface NodeMachine {
  /** The node folder. */
  readonly dir: string;
  /** The folder that is the node's `/`. */
  readonly root: string;
  /** Whether the node was installed (has a definition). */
  installed(): Promise<boolean>;
  /** Fresh disk: sysroot, the boot image deployed, the definition saved. */
  install(definition: NodeDefinition, signal?: AbortSignal): Promise<void>;
  definition(): Promise<NodeDefinition>;
  /** Runs the real Ignition from a (pointer) config into the root, as a first boot's initramfs. */
  provision(config: string, signal?: AbortSignal): Promise<ProvisionResult>;
  /** Boots the default deployment: records it as booted, points the root at it, empties /run. */
  boot(): Promise<BootedOs>;
  /** The shutdown half of a reboot: deploys a staged OS change. Returns whether one was. */
  shutdown(): Promise<boolean>;
  booted(): Promise<BootedOs | undefined>;
  /** Whether a path exists on the node (symlinks followed inside the root). */
  exists(path: string): Promise<boolean>;
  /** Reads and clears a reboot request written through the host's Rebooter. */
  takeRebootRequest(): Promise<RebootRequestRecord | undefined>;
  /** A log file in the node folder (`daemon` → `<dir>/daemon.log`). */
  logFile(name: string): string;
  /** Records the PIDs the supervisor runs (`state/processes.json`). */
  recordProcesses(pids: Readonly<Record<string, number>>): Promise<void>;
  /** Stops processes a previous supervisor left running (by the recorded PIDs). */
  reapStaleProcesses(): Promise<readonly number[]>;
  /** Deletes the node folder (clearing ostree's immutable deployment folders first). */
  destroy(): Promise<void>;
}
