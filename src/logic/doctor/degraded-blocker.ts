/**
 * What a Degraded node's reason (its `machineconfiguration.openshift.io/reason` annotation, the
 * daemon's words) says blocks it, and what lifts it. The daemon's texts are upstream's
 * (docs/reference/daemon.md): an on-disk mismatch names the file, a failed pull carries the
 * registry's answer, a failed extension install names the extensions. A reason this does not
 * recognise is still a blocker, named by the node, and its fix is to read the daemon's log.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { ForceFilePath } from '../nodeplan/node-paths.js';
import type { Blocker } from './blocker.js';

/** The MachineConfigs of the pool that set a field, as `mc/NAME` (or what to look for). */
function setters(machineConfigs: readonly MachineConfig[], sets: (mc: MachineConfig) => boolean) {
  const names = machineConfigs.filter(sets).map((mc) => `mc/${mc.metadata.name ?? ''}`);
  return names.length === 0 ? undefined : names.join(', ');
}

const forceFileFix = (node: string) =>
  `restore it, or have the daemon re-apply the whole config: \`oc debug node/${node} -- chroot /host touch ${ForceFilePath}\` (on the box: \`touch .mco/nodes/${node}/rootfs${ForceFilePath}\`, or the dashboard's Apply forcefile)`;

const driftPatterns: readonly RegExp[] = [
  /content mismatch for file "([^"]+)"/,
  /mode mismatch for file: "([^"]+)"/,
  /could not stat file "([^"]+)"/,
  /could not read file "([^"]+)"/,
  /couldn't decode file "([^"]+)"/,
  /invalid unit masked setting\. path: "([^"]+)"/,
  /unit "([^"]+)" expected enabled=/,
];

/** A file, unit or OS state on the node that differs from its config. */
function driftBlocker(node: string, reason: string): Blocker | undefined {
  for (const pattern of driftPatterns) {
    const path = pattern.exec(reason)?.[1];
    if (path !== undefined)
      return {
        kind: 'DriftedFile',
        object: `file ${path} on node/${node}`,
        why: `the file on the node differs from its config (${reason})`,
        fix: forceFileFix(node),
      };
  }
  if (/expected target osImageURL|missing expected kernel arguments/.test(reason))
    return { kind: 'DriftedFile', object: `node/${node}`, why: reason, fix: forceFileFix(node) };
  return undefined;
}

/**
 * The blocker a Degraded (or Unreconcilable) node's reason names. `machineConfigs` are the pool's
 * own, to name the one that asks for what failed.
 */
export function degradedBlocker(
  node: string,
  reason: string,
  machineConfigs: readonly MachineConfig[],
): Blocker {
  const drifted = driftBlocker(node, reason);
  if (drifted !== undefined) return drifted;
  if (/extension/i.test(reason)) {
    const asking = setters(machineConfigs, (mc) => (mc.spec?.extensions ?? []).length > 0);
    return {
      kind: 'Extension',
      object: asking ?? 'the extensions of the rendered config',
      why: reason,
      fix: /no extensions image/.test(reason)
        ? `upgrade to a release that names an extensions image (\`mco upgrade\`), or take the extensions out of ${asking ?? 'the MachineConfig'}: the node then follows the corrected config`
        : `ask only for extensions the image ships, or remove them from ${asking ?? 'the MachineConfig'}: the node then follows the corrected config`,
    };
  }
  const image = /failed to (?:update OS to|pull|fetch)\s*(\S+?):? /.exec(reason)?.[1];
  if (image !== undefined || /manifest unknown|pull(ing)? (image|the image)/i.test(reason)) {
    const asking = setters(machineConfigs, (mc) => (mc.spec?.osImageURL ?? '') !== '');
    return {
      kind: 'Image',
      object: image ?? asking ?? 'the OS image',
      why: `the image cannot be pulled: ${reason}`,
      fix: `push the image to its registry, or correct the osImageURL${asking === undefined ? '' : ` of ${asking}`} (\`kubectl edit\`, or delete it): the node then follows the corrected config`,
    };
  }
  return {
    kind: 'Degraded',
    object: `node/${node}`,
    why: reason === '' ? 'the daemon reports Degraded with no reason' : reason,
    fix: `read what the daemon did: \`mco logs node/${node}\`; correct the MachineConfig that fails and the node follows it`,
  };
}
