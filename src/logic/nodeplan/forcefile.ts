/**
 * The forcefile's part in a running node's decisions (docs/daemon.md "The forcefile"): whether a
 * sync updates, whether the node's forcefile annotation must be set or cleared, and how a preview
 * reads that annotation. Upstream's daemon looks at `/run/machine-config-daemon-force` only when
 * it updates anyway (at boot, or when the node is not Done), so on a Done node the file lingers
 * and turns the next rebootless change into a drain and a reboot; here a Done node acts on it at
 * once. Nothing outside the node can see a file in its /run, so the daemon reports it on its Node
 * with the annotation below (ours: upstream has none) for `mco rollout preview` and the dashboard.
 */
import { Annotation, DaemonState } from '../../api/machineconfiguration/v1/constants.js';
import { ForceFilePath } from './node-paths.js';

/** The value of `Annotation.forceFile` while a forcefile is pending or being acted on. */
export const ForceFilePending = 'pending';

/** What a sync of a running node does. */
export type SyncNeed =
  | { readonly kind: 'none' }
  /**
   * `forced`: the forcefile makes it a full re-apply with a reboot; `reapply`: only the forcefile
   * asks for it (a Done node on its desired config).
   */
  | {
      readonly kind: 'update';
      readonly forced: boolean;
      readonly reapply: boolean;
      readonly reason: string;
    };

export interface SyncInputs {
  /** The node's current config (the on-disk currentconfig wins over the annotation). */
  readonly current: string;
  readonly desired: string;
  readonly state: string | undefined;
  /** `/run/machine-config-daemon-force` exists. */
  readonly forceFile: boolean;
}

/**
 * upstream's prepUpdateFromCluster, plus the forcefile: a node on its desired config and Done
 * needs nothing, unless the forcefile asks it to re-apply that config.
 */
export function syncNeed(i: SyncInputs): SyncNeed {
  if (i.current !== i.desired)
    return {
      kind: 'update',
      forced: i.forceFile,
      reapply: false,
      reason: `current config ${i.current} differs from desired config ${i.desired}`,
    };
  if (i.state !== DaemonState.Done)
    return {
      kind: 'update',
      forced: i.forceFile,
      reapply: false,
      reason: `node is ${i.state ?? 'not Done'} on ${i.current}`,
    };
  if (i.forceFile)
    return {
      kind: 'update',
      forced: true,
      reapply: true,
      reason: `${ForceFilePath} exists: re-applying ${i.current} with a reboot`,
    };
  return { kind: 'none' };
}

/**
 * The patch that makes the node's annotation tell the truth: set while the forcefile exists,
 * removed once it is gone and no forced update is still under way (`settled`: the node is on
 * its config and Done, or about to report Done). `undefined`: nothing to write.
 */
export function forceFileAnnotationPatch(
  annotations: Readonly<Record<string, string>>,
  forceFile: boolean,
  settled: boolean,
): Readonly<Record<string, string | null>> | undefined {
  const annotated = Annotation.forceFile in annotations;
  if (forceFile)
    return annotations[Annotation.forceFile] === ForceFilePending
      ? undefined
      : { [Annotation.forceFile]: ForceFilePending };
  return annotated && settled ? { [Annotation.forceFile]: null } : undefined;
}

/**
 * Whether a Node reports a pending forcefile. Any value counts: a preview must not promise "no
 * reboot" because the annotation holds a value it does not know.
 */
export function forceFilePending(
  annotations: Readonly<Record<string, string>> | undefined,
): boolean {
  return annotations !== undefined && Annotation.forceFile in annotations;
}

/** Why a previewed node drains and reboots whatever the change is. */
export const PendingForceFileReason = `forcefile pending (${ForceFilePath}): the node re-applies its config and reboots`;
