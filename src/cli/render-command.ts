/**
 * `mco render`: what a set of MachineConfigs renders to for one pool, offline, with the name the
 * cluster will give it. Other tools depend on this interface; keep flags and output stable.
 *
 * `--explain` (with `--current`) prints, after the rendered name, what a running node on the
 * current config would do to apply it: the daemon's own plan (plan-explain.ts), with the node
 * disruption policies of `--machine-configuration` merged into the cluster defaults as the
 * operator merges them. `-o json` prints it as one object (`renderedName` and the plan summary).
 */
import { Command, Option } from 'commander';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { marshalGoYaml, type JsonValue } from '../lib/go-yaml.js';
import type { ManifestObject } from '../lib/manifests.js';
import { builtInPool, isBuiltInPoolName } from '../logic/pools/built-in-pools.js';
import {
  describeRenderPoolError,
  renderPool,
  type RenderedPool,
} from '../logic/render/render-pool.js';
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

function explain(
  options: RenderOptions,
  knobs: PlanKnobs,
  configs: { readonly current: MachineConfig | undefined; readonly rendered: MachineConfig },
): string {
  const { current, rendered } = configs;
  if (current === undefined) throw new CliError('--explain needs --current');
  const summary = explainUpdate(current, rendered, knobs);
  if (!summary.ok) throw new CliError(summary.error);
  const name = rendered.metadata.name ?? '';
  if (options.output === 'json')
    return `${JSON.stringify({ renderedName: name, ...summary.value }, null, 2)}\n`;
  return `${name}\n${explainText(summary.value)}`;
}

function format(rendered: RenderedPool, output: RenderOptions['output']): string {
  const { config } = rendered;
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
  const rendered = renderPool({
    pool: findPool(options, inputs),
    configs: [...configs, ...registries],
    controllerConfig,
    version: McoVersion,
    enforceVersionGates: false,
    current,
    overrides: knobs.overrides,
  });
  if (!rendered.ok) throw new CliError(describeRenderPoolError(rendered.error));
  if (options.explain === true)
    return explain(options, knobs, { current, rendered: rendered.value.config });
  return format(rendered.value, options.output);
}

export function renderCommand(io: CliIo): Command {
  return new Command('render')
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
      'after the name, what a running node on --current would do: actions, drain, reboot, changes',
    )
    .option(
      '--machine-configuration <file>',
      'MachineConfiguration whose spec.nodeDisruptionPolicy --explain plans with (default: none)',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['yaml', 'json', 'name'])
        .default('yaml'),
    )
    .action((paths: string[], options: RenderOptions) => {
      io.out(runRender(options, paths));
    });
}
