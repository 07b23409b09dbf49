/**
 * What `mco render --explain` assumed where it did not have the cluster's inputs, each as one
 * sentence saying why its rendered name or verdict may then differ from the cluster's (`mco
 * rollout preview`). Offline it has only the files: none of the template MachineConfigs the
 * cluster's template controller generates (`00-worker`, `01-worker-container-runtime`,
 * `01-worker-kubelet`), none of the cluster's other MachineConfigs, perhaps no ControllerConfig
 * and no MachineConfiguration. A file the inputs write that a missing template also writes (the
 * template's /etc/containers/registries.conf) is planned from --current's copy, not the
 * template's the nodes have: the drain rule for registries.conf compares the two contents
 * (docs/reference/daemon.md §7.5). With the cluster's inputs only the choices left are said.
 */
import { Label } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { TemplateFile } from '../template/generate-template-configs.js';
import { selectMachineConfigs } from './render-pool.js';

export type RenderAssumptionsInput =
  | {
      readonly source: 'files';
      readonly pool: MachineConfigPool;
      /** The MachineConfigs rendered (the inputs' and the generated registries configs). */
      readonly configs: readonly MachineConfig[];
      /** The template folder: which template MachineConfigs exist and the files each writes. */
      readonly templates: readonly TemplateFile[];
      readonly rendered: MachineConfig;
      readonly current: MachineConfig;
      readonly controllerConfig: boolean;
      readonly machineConfiguration: boolean;
      readonly baseOsImage: string;
      readonly baseExtensionsImage: string;
    }
  | {
      readonly source: 'cluster';
      readonly pool: string;
      /** The config planned from: the pool's rendered target, or --current's. */
      readonly from: { readonly name: string; readonly file?: string };
      readonly controllerConfig: boolean;
      readonly machineConfiguration: boolean;
      readonly imageFlags: readonly string[];
    };

interface TemplateConfig {
  readonly name: string;
  readonly role: string;
  readonly paths: readonly string[];
}

/** `path: '/etc/x'` of a file template (read by line: the rest of it may not be YAML yet). */
function templatePath(content: string): string | undefined {
  const m = /^path:\s*(['"]?)([^'"\n]+)\1\s*$/m.exec(content);
  return m?.[2];
}

/** The template MachineConfigs of the folder's `_base` platform, with the paths each writes. */
function templateConfigs(templates: readonly TemplateFile[]): TemplateConfig[] {
  const byName = new Map<string, { role: string; paths: string[] }>();
  const common: string[] = [];
  for (const t of templates) {
    const parts = t.path.split('/');
    const path = parts.includes('files') ? templatePath(t.content) : undefined;
    if (parts[0] === 'common') {
      if (path !== undefined) common.push(path);
      continue;
    }
    const [role, name] = parts;
    if (role === undefined || name === undefined || parts.length < 3 || parts[2] !== '_base')
      continue;
    const entry = byName.get(name) ?? { role, paths: [] };
    if (path !== undefined) entry.paths.push(path);
    byName.set(name, entry);
  }
  const names = [...byName.keys()].sort();
  // common files go to each role's first config (`00-<role>`), as the template controller does
  const firsts = new Set(
    [...new Set(names.map((n) => byName.get(n)?.role))].map((role) =>
      names.find((n) => byName.get(n)?.role === role),
    ),
  );
  return names.map((name) => {
    const { role, paths } = byName.get(name) ?? { role: '', paths: [] };
    return { name, role, paths: firsts.has(name) ? [...paths, ...common] : paths };
  });
}

function filePaths(mc: MachineConfig): Set<string> {
  const files = (mc.spec?.config as { storage?: { files?: { path?: string }[] } } | undefined)
    ?.storage?.files;
  return new Set((files ?? []).map((f) => f.path ?? ''));
}

const list = (xs: readonly string[]) => xs.join(', ');

function offline(input: Extract<RenderAssumptionsInput, { source: 'files' }>): string[] {
  const given = new Set(input.configs.map((mc) => mc.metadata.name ?? ''));
  const templates = templateConfigs(input.templates);
  const stubs = templates.map((t): MachineConfig => ({
    metadata: { name: t.name, labels: { [Label.role]: t.role } },
  }));
  const selected = new Set(selectMachineConfigs(input.pool, stubs).map((s) => s.metadata.name));
  const missing = templates.filter((t) => selected.has(t.name) && !given.has(t.name));
  const out: string[] = [];
  if (missing.length > 0) {
    out.push(
      `the inputs lack the template MachineConfigs ${list(missing.map((t) => t.name))}, which the cluster's template controller generates from its ControllerConfig: the rendered config has none of their files and units, so its name is not the cluster's`,
    );
    const rendered = filePaths(input.rendered);
    const current = filePaths(input.current);
    for (const t of missing)
      for (const path of t.paths.filter((p) => rendered.has(p)))
        out.push(
          `${path} is also written by ${t.name} on the cluster: the change is planned from ${current.has(path) ? "--current's copy" : 'none (--current has no such file)'}, not from the template's copy the nodes have, so its actions and drain may differ from the cluster's`,
        );
  }
  const role = input.pool.metadata.name === 'master' ? 'master' : 'worker';
  out.push(
    `only the inputs' MachineConfigs are rendered: the others the cluster holds for pool ${input.pool.metadata.name ?? ''} (the installer's 99-${role}-ssh, the controllers' generated kubelet, container runtime and registries configs, other users') are left out`,
  );
  if (!input.controllerConfig) {
    const image = (flag: string, value: string) => (value === '' ? 'empty' : `${value} (${flag})`);
    out.push(
      `no ControllerConfig (--controller-config): the base OS image is ${image('--base-os-image', input.baseOsImage)} and the extensions image ${image('--base-extensions-image', input.baseExtensionsImage)}; the cluster's ControllerConfig sets both, and the rendered name depends on them`,
    );
  }
  if (!input.machineConfiguration)
    out.push(
      "no MachineConfiguration (--machine-configuration): the node disruption policies are the cluster defaults; the cluster merges MachineConfiguration/cluster's spec.nodeDisruptionPolicy into them",
    );
  out.push(
    `the node runs --current (${input.current.metadata.name ?? ''}); on the cluster each node plans from its own current config`,
  );
  return out;
}

function cluster(input: Extract<RenderAssumptionsInput, { source: 'cluster' }>): string[] {
  const out: string[] = [];
  out.push(
    input.from.file === undefined
      ? `the node runs pool ${input.pool}'s rendered config ${input.from.name}; a node on another config plans from its own (mco rollout preview plans each node)`
      : `the node runs --current (${input.from.name}, from ${input.from.file}), not a node's config from the cluster`,
  );
  if (!input.controllerConfig)
    out.push(
      'the cluster has no ControllerConfig machine-config-controller (or it cannot be read): the base OS and extensions images are empty',
    );
  if (input.imageFlags.length > 0)
    out.push(
      `${list(input.imageFlags)} replace the ControllerConfig's images, so the rendered name is not the one the cluster will give`,
    );
  if (!input.machineConfiguration)
    out.push(
      'the cluster has no MachineConfiguration/cluster (or it cannot be read): the node disruption policies are the cluster defaults',
    );
  return out;
}

/** The assumptions, in the order the output lists them; none that the inputs settle. */
export function renderAssumptions(input: RenderAssumptionsInput): string[] {
  return input.source === 'files' ? offline(input) : cluster(input);
}
