/**
 * Files on the node that belong to the daemon itself (docs/reference/catalog.md §A.2), plus the update
 * journal that makes every update resumable after a crash (docs/daemon.md "Daemon process").
 */

const DaemonDir = '/etc/machine-config-daemon';
/**
 * The config the node is on (MachineConfig JSON); wins over the annotation
 * (docs/reference/daemon.md §7.1).
 */
export const CurrentConfigPath = `${DaemonDir}/currentconfig`;
/** Annotations the machine config server seeded at first boot (docs/reference/daemon.md §7.7). */
export const NodeAnnotationsPath = `${DaemonDir}/node-annotations.json`;
/** Where the seed file goes once used (upstream's name, without the "s"). */
export const NodeAnnotationsBakPath = `${DaemonDir}/node-annotation.json.bak`;
/** The rendered config minus nothing, for the first-boot step (docs/reference/firstboot.md §8). */
export const EncapsulatedConfigPath = '/etc/ignition-machine-config-encapsulated.json';
export const EncapsulatedConfigBakPath = `${EncapsulatedConfigPath}.bak`;
/** Ignition's preset file, removed at the first sync (docs/reference/daemon.md §7.1). */
export const IgnitionPresetPath = '/etc/systemd/system-preset/20-ignition.preset';
/** The node's kubeconfig, made 0600 on every update (docs/reference/daemon.md §7.2 step 8). */
export const NodeKubeconfigPath = '/etc/kubernetes/kubeconfig';

/** The update journal: what the update in progress is and how far it got. */
export const JournalPath = `${DaemonDir}/update-journal.json`;
/** The journal's side files: both configs and the prior state of what the update overwrites. */
export const JournalDir = `${DaemonDir}/update-journal.d`;
export const JournalFromConfigPath = `${JournalDir}/from.json`;
export const JournalToConfigPath = `${JournalDir}/to.json`;
const JournalPriorDir = `${JournalDir}/prior`;

/**
 * Present from the reboot request until the machine reboots: /run is emptied at boot, so its
 * absence after a journaled reboot request proves the reboot happened.
 */
export const RebootMarkerPath = '/run/machine-config-daemon/reboot-requested';

/** Where a journaled prior copy of `path` lives. */
export function priorCopyPath(path: string): string {
  return `${JournalPriorDir}${path}`;
}

/** The folder holding an absolute node path (`/` for a top-level one). */
export function parentDir(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}
