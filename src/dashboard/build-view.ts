/**
 * On-Cluster Layering as the dashboard shows it (docs/layering.md): each MachineOSConfig (its pool,
 * push spec, the image its pool runs and the build that made it, the administrator's
 * Containerfile) and each MachineOSBuild (its phase, the five conditions, the rendered config it
 * was built for, the image it pushed by digest, its start and end), newest build first.
 */
import {
  MachineOSBuildPhases,
  type MachineOSBuild,
  type MachineOSBuildPhase,
} from '../api/machineconfiguration/v1/machine-os-build.js';
import type { MachineOSConfig } from '../api/machineconfiguration/v1/machine-os-config.js';
import type { ConditionView } from './dashboard-snapshot.js';

/** The MachineOSConfig's annotation naming its current build (docs/reference/image-mode.md §7). */
const CurrentBuildAnnotation = 'machineconfiguration.openshift.io/current-machine-os-build';
/** The MachineOSBuild's label naming its pool. */
const PoolLabel = 'machineconfiguration.openshift.io/target-machine-config-pool';

interface MachineOSConfigView {
  readonly name: string;
  readonly pool: string;
  readonly pushSpec: string;
  /** `status.currentImagePullSpec`: the built image the pool rolls to, by digest. */
  readonly currentImage: string;
  readonly currentBuild: string;
  /** The `NoArch` Containerfile (the one built). */
  readonly containerfile: string;
}

export interface MachineOSBuildView {
  readonly name: string;
  readonly machineOSConfig: string;
  readonly pool: string;
  readonly renderedConfig: string;
  /** The phase whose condition is True; `Pending` before the controller set any. */
  readonly phase: MachineOSBuildPhase | 'Pending';
  readonly conditions: readonly ConditionView[];
  readonly pushSpec: string;
  /** `status.digestedImagePushSpec` once pushed. */
  readonly image: string;
  readonly buildStart: string;
  readonly buildEnd: string;
  readonly created: string;
  /** The build its MachineOSConfig names as current. */
  readonly current: boolean;
}

export interface BuildsView {
  /** Why MachineOSConfigs or MachineOSBuilds could not be read, if one could not. */
  readonly notes: readonly string[];
  readonly configs: readonly MachineOSConfigView[];
  /** Newest first. */
  readonly builds: readonly MachineOSBuildView[];
}

export type Listed<T> =
  | { readonly kind: 'found'; readonly items: readonly T[] }
  | { readonly kind: 'unreadable'; readonly message: string };

function configView(m: MachineOSConfig): MachineOSConfigView {
  const entry = (m.spec.containerFile ?? []).find(
    (c) => (c.containerfileArch ?? 'NoArch') === 'NoArch',
  );
  return {
    name: m.metadata.name ?? '',
    pool: m.spec.machineConfigPool.name,
    pushSpec: m.spec.renderedImagePushSpec,
    currentImage: m.status?.currentImagePullSpec ?? '',
    currentBuild:
      m.metadata.annotations?.[CurrentBuildAnnotation] ?? m.status?.machineOSBuild?.name ?? '',
    containerfile: entry?.content ?? '',
  };
}

/** What the build's status says: its phase, conditions, image and times. */
function statusView(
  b: MachineOSBuild,
): Pick<MachineOSBuildView, 'phase' | 'conditions' | 'image' | 'buildStart' | 'buildEnd'> {
  const status = b.status ?? {};
  const conditions = (status.conditions ?? []).map(
    ({ type, status, reason, message, lastTransitionTime }) => ({
      type,
      status,
      reason,
      message,
      lastTransitionTime,
    }),
  );
  return {
    phase:
      MachineOSBuildPhases.find((p) => conditions.find((c) => c.type === p)?.status === 'True') ??
      'Pending',
    conditions,
    image: status.digestedImagePushSpec ?? '',
    buildStart: status.buildStart ?? '',
    buildEnd: status.buildEnd ?? '',
  };
}

function buildView(b: MachineOSBuild, configs: readonly MachineOSConfigView[]): MachineOSBuildView {
  const name = b.metadata.name ?? '';
  const config = configs.find((c) => c.name === b.spec.machineOSConfig.name);
  return {
    name,
    machineOSConfig: b.spec.machineOSConfig.name,
    pool: b.metadata.labels?.[PoolLabel] ?? config?.pool ?? '',
    renderedConfig: b.spec.machineConfig.name,
    pushSpec: b.spec.renderedImagePushSpec,
    created: b.metadata.creationTimestamp ?? '',
    current: config !== undefined && config.currentBuild === name,
    ...statusView(b),
  };
}

export function buildsView(
  configs: Listed<MachineOSConfig>,
  builds: Listed<MachineOSBuild>,
): BuildsView {
  const notes: string[] = [];
  if (configs.kind === 'unreadable') notes.push(`MachineOSConfigs: ${configs.message}`);
  if (builds.kind === 'unreadable') notes.push(`MachineOSBuilds: ${builds.message}`);
  const configViews = (configs.kind === 'found' ? configs.items : [])
    .map(configView)
    .sort((a, b) => a.name.localeCompare(b.name));
  const buildViews = (builds.kind === 'found' ? builds.items : [])
    .map((b) => buildView(b, configViews))
    // RFC 3339 times in UTC sort as text; the name breaks ties so the order is stable.
    .sort((a, b) => b.created.localeCompare(a.created) || a.name.localeCompare(b.name));
  return { notes, configs: configViews, builds: buildViews };
}
