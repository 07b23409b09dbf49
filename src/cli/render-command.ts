/**
 * `mco render`: what a set of MachineConfigs renders to for one pool, offline, with the name the
 * cluster will give it. Other tools depend on this interface; keep flags and output stable.
 *
 * `--explain` (with `--current`) prints, after the rendered name, what a running node on the
 * current config would do to apply it: the daemon's own plan (plan-explain.ts), with the node
 * disruption policies of `--machine-configuration` merged into the cluster defaults as the
 * operator merges them, and what it assumed for want of the cluster's inputs. `-o json` prints it
 * as one object (`renderedName`, the plan summary, `inputs` and `assumed`).
 *
 * `--from-cluster` (the user's kubeconfig) or `--cluster-inputs FILE` (what `kubectl get
 * machineconfigs,machineconfigpools,controllerconfigs,machineconfigurations -o yaml` wrote)
 * render with the cluster's inputs instead: its template and other MachineConfigs, pools,
 * ControllerConfig and MachineConfiguration, the PATHs' MachineConfigs and pools applied over them,
 * through the same function as `mco rollout preview` (logic/nodeplan/pool-change.ts), so the name
 * is the one the cluster will give and `--explain` (from the pool's current config unless
 * `--current`) gives the preview's verdict.
 */
import { Command, Option } from 'commander';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { marshalGoYaml, type JsonValue } from '../lib/go-yaml.js';
import type { ManifestObject } from '../lib/manifests.js';
import { builtInPool, isBuiltInPoolName } from '../logic/pools/built-in-pools.js';
import { describeRenderPoolError, renderPool } from '../logic/render/render-pool.js';
import { renderAssumptions } from '../logic/render/render-assumptions.js';
import type { PlanSummary } from '../logic/nodeplan/plan-summary.js';
import {
  describePoolChangeError,
  planFromConfig,
  renderPoolChange,
  type ClusterInputs,
} from '../logic/nodeplan/pool-change.js';
import {
  clusterInputsFromFile,
  ExportCommand,
  readClusterInputs,
  sortApplied,
} from './cluster-inputs.js';
import { connect, withKubeconfigFlags, type KubeconfigEnvironment } from './kubeconfig-loading.js';
import { McoVersion } from '../version.js';
import { loadManifests } from '../shell/load-manifests.js';
import { defaultTemplatesDir, loadTemplates } from './load-templates.js';
import { generatedRegistriesConfigs } from './registries-inputs.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import type { MachineConfiguration } from '../api/operator/v1/machine-configuration.js';
import {
  explainText,
  explainUpdate,
  knobsFromMachineConfiguration,
  type PlanKnobs,
} from './plan-explain.js';

export interface RenderOptions {
  readonly pool: string;
  readonly poolFile?: string;
  readonly baseOsImage?: string;
  readonly baseExtensionsImage?: string;
  readonly controllerConfig?: string;
  readonly current?: string;
  readonly explain?: boolean;
  readonly machineConfiguration?: string;
  readonly fromCluster?: boolean;
  readonly clusterInputs?: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly output: 'yaml' | 'json' | 'name';
}

function ofKind<T>(objects: readonly ManifestObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as unknown as T[];
}

function findPool(options: RenderOptions, inputs: readonly ManifestObject[]): MachineConfigPool {
  const named = (pools: MachineConfigPool[]): MachineConfigPool | undefined =>
    pools.find((p) => p.metadata.name === options.pool);
  if (options.poolFile !== undefined) {
    const pools = ofKind<MachineConfigPool>(loadManifests([options.poolFile]), 'MachineConfigPool');
    const pool = named(pools) ?? (pools.length === 1 ? pools[0] : undefined);
    if (pool === undefined)
      throw new CliError(`no MachineConfigPool named ${options.pool} in ${options.poolFile}`);
    return { ...pool, metadata: { ...pool.metadata, name: options.pool } };
  }
  const pool = named(ofKind<MachineConfigPool>(inputs, 'MachineConfigPool'));
  if (pool !== undefined) return pool;
  if (isBuiltInPoolName(options.pool)) return builtInPool(options.pool);
  throw new CliError(
    `MachineConfigPool ${options.pool} not found: pass --pool-file or include a MachineConfigPool named ${options.pool} in the inputs`,
  );
}

function findControllerConfig(
  options: RenderOptions,
  inputs: readonly ManifestObject[],
): ControllerConfig {
  const source =
    options.controllerConfig === undefined ? inputs : loadManifests([options.controllerConfig]);
  const found = ofKind<ControllerConfig>(source, 'ControllerConfig')[0];
  if (options.controllerConfig !== undefined && found === undefined) {
    throw new CliError(`no ControllerConfig in ${options.controllerConfig}`);
  }
  return withImages(options, found);
}

/** The ControllerConfig with the image flags over its images (an empty one without it). */
function withImages(options: RenderOptions, found: ControllerConfig | undefined): ControllerConfig {
  const spec = found?.spec;
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: found?.metadata ?? { name: 'machine-config-controller' },
    spec: {
      ...spec,
      baseOSContainerImage: options.baseOsImage ?? spec?.baseOSContainerImage ?? '',
      baseOSExtensionsContainerImage:
        options.baseExtensionsImage ?? spec?.baseOSExtensionsContainerImage ?? '',
    },
  } as ControllerConfig;
}

function loadCurrent(file: string | undefined): MachineConfig | undefined {
  if (file === undefined) return undefined;
  const current = ofKind<MachineConfig>(loadManifests([file]), 'MachineConfig')[0];
  if (current === undefined) throw new CliError(`no MachineConfig in ${file}`);
  return current;
}

/** The MachineConfiguration in `file` (its spec is what counts), or undefined without a file. */
export function loadMachineConfiguration(
  file: string | undefined,
): MachineConfiguration | undefined {
  if (file === undefined) return undefined;
  const found = ofKind<MachineConfiguration>(loadManifests([file]), 'MachineConfiguration')[0];
  if (found === undefined) throw new CliError(`no MachineConfiguration in ${file}`);
  return { ...found, spec: found.spec ?? { managementState: 'Managed' } };
}

interface Explained {
  readonly rendered: MachineConfig;
  readonly summary: PlanSummary;
  readonly inputs: string;
  readonly assumed: readonly string[];
}

const OfflineHint = `--from-cluster, or --cluster-inputs FILE (\`${ExportCommand}\`), plans with the cluster's inputs, as mco rollout preview does`;

function explainOutput(options: RenderOptions, e: Explained): string {
  const name = e.rendered.metadata.name ?? '';
  if (options.output === 'json')
    return `${JSON.stringify({ renderedName: name, ...e.summary, inputs: e.inputs, assumed: e.assumed }, null, 2)}\n`;
  const assumed = e.assumed.map((a) => `  - ${a}\n`).join('');
  const inputs =
    e.inputs === 'files' ? `inputs: the files only; ${OfflineHint}` : `inputs: ${e.inputs}`;
  return `${name}\n${explainText(e.summary)}${inputs}\n${assumed === '' ? '' : `assumed:\n${assumed}`}`;
}

function explainOffline(
  options: RenderOptions,
  input: {
    readonly knobs: PlanKnobs;
    readonly pool: MachineConfigPool;
    readonly configs: readonly MachineConfig[];
    readonly controllerConfig: ControllerConfig;
    readonly current: MachineConfig | undefined;
    readonly rendered: MachineConfig;
    readonly ccGiven: boolean;
  },
): string {
  const { current, rendered } = input;
  if (current === undefined)
    throw new CliError('--explain needs --current, --from-cluster or --cluster-inputs');
  const summary = explainUpdate(current, rendered, input.knobs);
  if (!summary.ok) throw new CliError(summary.error);
  const assumed = renderAssumptions({
    source: 'files',
    pool: input.pool,
    configs: input.configs,
    templates: loadTemplates(defaultTemplatesDir()),
    rendered,
    current,
    controllerConfig: input.ccGiven,
    machineConfiguration: options.machineConfiguration !== undefined,
    baseOsImage: input.controllerConfig.spec.baseOSContainerImage ?? '',
    baseExtensionsImage: input.controllerConfig.spec.baseOSExtensionsContainerImage ?? '',
  });
  return explainOutput(options, { rendered, summary: summary.value, inputs: 'files', assumed });
}

function format(config: MachineConfig, output: RenderOptions['output']): string {
  if (output === 'name') return `${config.metadata.name ?? ''}\n`;
  if (output === 'json') return `${JSON.stringify(config, null, 2)}\n`;
  return marshalGoYaml(config as unknown as JsonValue);
}

/** Renders and returns the text for stdout; throws CliError with upstream's message otherwise. */
export function runRender(options: RenderOptions, paths: readonly string[]): string {
  const inputs = loadManifests(paths);
  const configs = ofKind<MachineConfig>(inputs, 'MachineConfig');
  const unlabeled = configs.find((mc) => mc.metadata.labels === undefined);
  if (unlabeled !== undefined)
    throw new CliError(`cannot find label in MachineConfig ${unlabeled.metadata.name ?? ''}`);

  if (options.explain !== true && options.machineConfiguration !== undefined)
    throw new CliError('--machine-configuration needs --explain');
  const current = loadCurrent(options.current);
  const knobs = knobsFromMachineConfiguration(
    loadMachineConfiguration(options.machineConfiguration),
  );
  const controllerConfig = findControllerConfig(options, inputs);
  // the registries controller writes one config per built-in pool; custom pools select worker's
  const registries = generatedRegistriesConfigs({
    objects: inputs,
    controllerConfig,
    pools: ['master', 'worker'],
    templates: () => loadTemplates(defaultTemplatesDir()),
    versionHash: McoVersion.hash,
  });
  const pool = findPool(options, inputs);
  const rendered = renderPool({
    pool,
    configs: [...configs, ...registries],
    controllerConfig,
    version: McoVersion,
    enforceVersionGates: false,
    current,
    overrides: knobs.overrides,
  });
  if (!rendered.ok) throw new CliError(describeRenderPoolError(rendered.error));
  if (options.explain === true)
    return explainOffline(options, {
      knobs,
      pool,
      configs: [...configs, ...registries],
      controllerConfig,
      current,
      rendered: rendered.value.config,
      ccGiven:
        options.controllerConfig !== undefined ||
        ofKind<ControllerConfig>(inputs, 'ControllerConfig').length > 0,
    });
  return format(rendered.value.config, options.output);
}

/** The flags that name an input the cluster's inputs already hold. */
const ClusterHeld = [
  ['controllerConfig', '--controller-config', "the cluster's ControllerConfig"],
  ['machineConfiguration', '--machine-configuration', "the cluster's MachineConfiguration/cluster"],
  ['poolFile', '--pool-file', "the cluster's pools, with those of the PATHs applied"],
] as const;

/** Refuses flag combinations before anything is read: the error changes nothing. */
function checkClusterFlags(options: RenderOptions): 'cluster' | 'file' | undefined {
  const from = options.fromCluster === true;
  if (from && options.clusterInputs !== undefined)
    throw new CliError('--from-cluster and --cluster-inputs cannot be combined');
  const mode = from ? 'cluster' : options.clusterInputs === undefined ? undefined : 'file';
  if (mode === undefined) {
    for (const flag of ['kubeconfig', 'context'] as const)
      if (options[flag] !== undefined) throw new CliError(`--${flag} needs --from-cluster`);
    return undefined;
  }
  const flag = from ? '--from-cluster' : '--cluster-inputs';
  if (!from && (options.kubeconfig !== undefined || options.context !== undefined))
    throw new CliError('--kubeconfig and --context need --from-cluster');
  for (const [key, name, used] of ClusterHeld)
    if (options[key] !== undefined)
      throw new CliError(`${name} cannot be combined with ${flag}: ${used} is used`);
  return mode;
}

/**
 * Renders with the cluster's inputs, the PATHs' MachineConfigs and pools applied as `mco rollout
 * preview` applies them; the text for stdout and a note for each object of the PATHs skipped.
 */
export function runRenderWithCluster(
  options: RenderOptions,
  paths: readonly string[],
  cluster: { readonly inputs: ClusterInputs; readonly source: string },
): { readonly out: string; readonly notes: readonly string[] } {
  const applied = sortApplied(loadManifests(paths), `render with the cluster's inputs`);
  const current = loadCurrent(options.current);
  const imageFlags = [
    ...(options.baseOsImage === undefined ? [] : ['--base-os-image']),
    ...(options.baseExtensionsImage === undefined ? [] : ['--base-extensions-image']),
  ];
  const change = renderPoolChange({
    cluster: cluster.inputs,
    change: applied,
    pool: options.pool,
    controllerConfig:
      imageFlags.length === 0 ? undefined : withImages(options, cluster.inputs.controllerConfig),
    version: McoVersion,
  });
  if (!change.ok) throw new CliError(describePoolChangeError(change.error));
  const { rendered } = change.value;
  if (options.explain !== true)
    return { out: format(rendered, options.output), notes: applied.skipped };
  const summary =
    current === undefined
      ? planFromConfig(change.value)
      : explainUpdate(current, rendered, change.value.knobs);
  if (!summary.ok) throw new CliError(summary.error);
  const assumed = renderAssumptions({
    source: 'cluster',
    pool: options.pool,
    from:
      current === undefined || options.current === undefined
        ? { name: summary.value.from }
        : { name: summary.value.from, file: options.current },
    controllerConfig: cluster.inputs.controllerConfig !== undefined,
    machineConfiguration: cluster.inputs.machineConfiguration !== undefined,
    imageFlags,
  });
  return {
    out: explainOutput(options, {
      rendered,
      summary: summary.value,
      inputs: cluster.source,
      assumed,
    }),
    notes: applied.skipped,
  };
}

export function renderCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withKubeconfigFlags(new Command('render'))
    .description('Render the MachineConfigs in PATHs for one pool, offline, as the cluster would')
    .argument(
      '<path...>',
      'YAML or JSON files or folders (multi-document YAML and List kinds accepted)',
    )
    .requiredOption('--pool <name>', 'pool to render (master and worker have default selectors)')
    .option('--pool-file <file>', 'file holding the MachineConfigPool')
    .option('--base-os-image <image>', 'base OS image (overrides the ControllerConfig)')
    .option(
      '--base-extensions-image <image>',
      'base OS extensions image (overrides the ControllerConfig)',
    )
    .option('--controller-config <file>', 'ControllerConfig supplying the base images')
    .option('--current <file>', 'rendered MachineConfig the result must be reconcilable with')
    .option(
      '--explain',
      'after the name, what a running node on --current would do: actions, drain, reboot, changes, and what was assumed',
    )
    .option(
      '--from-cluster',
      "render with the cluster's MachineConfigs, pools, ControllerConfig and MachineConfiguration (the kubeconfig's), PATHs applied over them",
    )
    .option('--cluster-inputs <file>', `the same from a file: \`${ExportCommand}\``)
    .option(
      '--machine-configuration <file>',
      'MachineConfiguration whose spec.nodeDisruptionPolicy --explain plans with (default: none)',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['yaml', 'json', 'name'])
        .default('yaml'),
    )
    .action(async (paths: string[], options: RenderOptions) => {
      const mode = checkClusterFlags(options);
      if (mode === undefined) {
        io.out(runRender(options, paths));
        return;
      }
      const inputs =
        mode === 'file'
          ? clusterInputsFromFile(options.clusterInputs ?? '')
          : await readClusterInputs(await connect(options, env));
      const source = mode === 'file' ? `cluster-inputs ${options.clusterInputs ?? ''}` : 'cluster';
      const r = runRenderWithCluster(options, paths, { inputs, source });
      for (const note of r.notes) io.err(`note: ${note}\n`);
      io.out(r.out);
    });
}
