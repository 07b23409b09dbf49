/**
 * `mco bootstrap --manifest-dir DIR --dest-dir DIR`: the controller's bootstrap mode
 * (docs/reference/operator.md §9.3) without a cluster. Reads the ControllerConfig, pools and MachineConfigs
 * from a folder of manifests, generates the template MachineConfigs, renders every pool, and
 * writes what `mco server --bootstrap-dir` serves:
 *   `machine-pools/<pool>.yaml` (spec and status `configuration` set),
 *   `machine-configs/<rendered>.yaml`,
 *   `controller-config/machine-config-controller.yaml`.
 * Image, ImageDigestMirrorSet, ImageTagMirrorSet and ImageContentSourcePolicy manifests give each
 * pool its `99-<pool>-generated-registries` (docs/reference/registries.md §7). As upstream, each
 * pool's `configuration.source` lists every input MachineConfig, not only the pool's (quirk).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { marshalGoYaml, type JsonValue } from '../lib/go-yaml.js';
import type { ManifestObject } from '../lib/manifests.js';
import { builtInPool } from '../logic/pools/built-in-pools.js';
import { describeRenderPoolError, renderPool } from '../logic/render/render-pool.js';
import {
  describeTemplateError,
  generateTemplateMachineConfigs,
  type TemplateFile,
} from '../logic/template/generate-template-configs.js';
import { McoVersion } from '../version.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { loadManifests } from '../shell/load-manifests.js';
import { defaultTemplatesDir, loadTemplates } from './load-templates.js';
import { generatedRegistriesConfigs } from './registries-inputs.js';

export interface BootstrapInput {
  readonly objects: readonly ManifestObject[];
  readonly templates: readonly TemplateFile[];
  /** Named in the "no controllerconfig" error, as upstream does. */
  readonly manifestDir: string;
}

export interface BootstrapOutput {
  /** Relative path under the destination → file content. */
  readonly files: ReadonlyMap<string, string>;
  /** Things the user should know (inputs bootstrap does not render). */
  readonly warnings: readonly string[];
}

function ofKind<T>(objects: readonly ManifestObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as unknown as T[];
}

const yaml = (o: unknown): string => marshalGoYaml(o as JsonValue);

/** The pools to render: the manifests', or upstream's master and worker when there are none. */
function poolsOf(objects: readonly ManifestObject[]): MachineConfigPool[] {
  const pools = ofKind<MachineConfigPool>(objects, 'MachineConfigPool');
  return pools.length > 0 ? pools : [builtInPool('master'), builtInPool('worker')];
}

/** Renders every pool; pure apart from reading nothing: the caller loads and writes. */
export function renderBootstrap(input: BootstrapInput): BootstrapOutput {
  const cc = ofKind<ControllerConfig>(input.objects, 'ControllerConfig')[0];
  if (cc === undefined)
    throw new CliError(`no controllerconfig found in dir: "${input.manifestDir}"`);
  const warnings = [
    ...ofKind<ManifestObject>(input.objects, 'KubeletConfig'),
    ...ofKind<ManifestObject>(input.objects, 'ContainerRuntimeConfig'),
  ].map(
    (o) =>
      `${String(o.kind)} ${o.metadata?.name ?? ''} is not rendered in bootstrap mode yet: the controller applies it once the cluster runs`,
  );

  const userConfigs = ofKind<MachineConfig>(input.objects, 'MachineConfig');
  const unlabeled = userConfigs.find((mc) => mc.metadata.labels === undefined);
  if (unlabeled !== undefined)
    throw new CliError(`cannot find label in MachineConfig ${unlabeled.metadata.name ?? ''}`);
  const generated = generateTemplateMachineConfigs({
    controllerConfig: cc,
    templates: input.templates,
    versionHash: McoVersion.hash,
  });
  if (!generated.ok) throw new CliError(describeTemplateError(generated.error));
  const pools = poolsOf(input.objects);
  const registries = generatedRegistriesConfigs({
    objects: input.objects,
    controllerConfig: cc,
    pools: pools.map((p) => p.metadata.name ?? ''),
    templates: () => input.templates,
  });
  const configs = [...userConfigs, ...generated.value, ...registries];
  const source = configs.map((mc) => ({
    kind: 'MachineConfig',
    name: mc.metadata.name ?? '',
    apiVersion: 'machineconfiguration.openshift.io/v1',
  }));

  const files = new Map<string, string>();
  for (const pool of pools) {
    const rendered = renderPool({
      pool,
      configs,
      controllerConfig: cc,
      version: McoVersion,
      enforceVersionGates: false,
    });
    if (!rendered.ok) throw new CliError(describeRenderPoolError(rendered.error));
    const name = rendered.value.config.metadata.name ?? '';
    const configuration = { name, source };
    const out: MachineConfigPool = {
      ...pool,
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      spec: { ...pool.spec, configuration },
      status: { ...pool.status, configuration },
    };
    files.set(`machine-pools/${pool.metadata.name ?? ''}.yaml`, yaml(out));
    files.set(`machine-configs/${name}.yaml`, yaml(rendered.value.config));
  }
  files.set('controller-config/machine-config-controller.yaml', yaml(cc));
  return { files, warnings };
}

interface BootstrapOptions {
  readonly manifestDir: string;
  readonly destDir: string;
  readonly templatesDir?: string;
}

export function runBootstrap(options: BootstrapOptions, io: CliIo): void {
  const output = renderBootstrap({
    objects: loadManifests([options.manifestDir]),
    templates: loadTemplates(options.templatesDir ?? defaultTemplatesDir()),
    manifestDir: options.manifestDir,
  });
  for (const w of output.warnings) io.err(`warning: ${w}\n`);
  const dest = resolve(options.destDir);
  for (const [path, content] of output.files) {
    const file = join(dest, path);
    try {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, content, { mode: 0o644 });
    } catch (e) {
      throw new CliError(`writing ${file}: ${(e as Error).message}`, { cause: e });
    }
    io.out(`${path}\n`);
  }
}

export function bootstrapCommand(io: CliIo): Command {
  return new Command('bootstrap')
    .description(
      'Render the pools of a manifests folder without a cluster, for mco server --bootstrap-dir',
    )
    .requiredOption(
      '--manifest-dir <dir>',
      'folder of manifests: ControllerConfig, pools, MachineConfigs',
    )
    .requiredOption(
      '--dest-dir <dir>',
      'where to write machine-pools/, machine-configs/ and controller-config/',
    )
    .option('--templates-dir <dir>', 'MachineConfig templates (default: the bundled templates/)')
    .action((options: BootstrapOptions) => {
      runBootstrap(options, io);
    });
}
