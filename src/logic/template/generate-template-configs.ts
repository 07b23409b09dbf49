/**
 * The base MachineConfigs every pool starts from (`00-<role>`, `01-<role>-kubelet`,
 * `01-<role>-container-runtime`), generated from the ControllerConfig and the template folder, as
 * upstream's template controller does (`pkg/controller/template/render.go`). Pure: the caller reads
 * the template files and passes them in; bootstrap mode and the template controller share this.
 *
 * Layout (paths relative to the template folder, `/`-separated):
 *   `<role>/<name>/<platform>/{files,units}/…/<file>.yaml` → MachineConfig `<name>` for `<role>`;
 *   `common/<platform>/{files,units}/…` → added to the first `<name>` of every role (`00-<role>`).
 * `<platform>` is `_base` (always) and the cluster's platform (e.g. `aws`), read in that order;
 * a later file with the same file name replaces an earlier one, and an empty file removes it.
 * Files and units are emitted sorted by template file name (upstream sorts them so the result is
 * stable, which keeps rendered names stable).
 */
import { parse as parseYaml } from 'yaml';
import { Annotation, ApiVersion, Label } from '../../api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { OwnerReference } from '../../api/meta/v1/owner-reference.js';
import { encodeDataUrl } from '../../ignition/data-url.js';
import { describeIgnitionParseError, parseIgnition } from '../../ignition/parse.js';
import { formatReport, isFatal } from '../../ignition/report.js';
import { serializeIgnition } from '../../ignition/serialize.js';
import type { IgnitionConfig, IgnitionFile, IgnitionUnit } from '../../ignition/types.js';
import type { Result } from '../../lib/result.js';
import { err, ok } from '../../lib/result.js';
import {
  describeRenderTemplateError,
  renderTemplate,
  type RenderTemplateError,
} from './render-template.js';
import { templateContext, templatePlatform } from './template-context.js';
import { errorText } from '../../lib/error-text.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

/** One template file: its path under the template folder and its text. */
export interface TemplateFile {
  readonly path: string;
  readonly content: string;
}

export interface GenerateTemplateInput {
  readonly controllerConfig: ControllerConfig;
  readonly templates: readonly TemplateFile[];
  /** upstream version.Hash: the `generated-by-controller-version` annotation. */
  readonly versionHash: string;
  /** The template controller owns its configs through the ControllerConfig; bootstrap does not. */
  readonly owner?: OwnerReference;
}

export type TemplateError =
  | { readonly kind: 'UnsupportedPlatform'; readonly platform: string }
  | { readonly kind: 'NoTemplates' }
  | { readonly kind: 'Render'; readonly error: RenderTemplateError }
  | { readonly kind: 'InvalidEntry'; readonly path: string; readonly message: string }
  | { readonly kind: 'InvalidConfig'; readonly name: string; readonly report: string };

export function describeTemplateError(e: TemplateError): string {
  switch (e.kind) {
    case 'UnsupportedPlatform':
      return `platform ${e.platform} unsupported`;
    case 'NoTemplates':
      return 'no templates: expected <role>/<name>/<platform>/{files,units}/ folders';
    case 'Render':
      return `failed to execute template: ${describeRenderTemplateError(e.error)}`;
    case 'InvalidEntry':
      return `failed to read template ${e.path}: ${e.message}`;
    case 'InvalidConfig':
      return `template MachineConfig ${e.name} is not a valid Ignition config: ${e.report}`;
  }
}

const CommonDir = 'common';
const BaseDir = '_base';

interface Located {
  readonly file: TemplateFile;
  /** `files` or `units`. */
  readonly kind: 'files' | 'units';
  /** `common` or `<role>/<name>`, and the platform folder. */
  readonly owner: string;
  readonly platform: string;
  /** The template's file name: the key later files replace by. */
  readonly key: string;
}

/** Splits a template path into its layout parts; undefined for files outside the layout. */
function locate(file: TemplateFile): Located | undefined {
  const parts = file.path.split('/').filter((p) => p !== '' && p !== '.');
  const common = parts[0] === CommonDir;
  const head = common ? 1 : 2;
  const platform = parts[head];
  const kind = parts[head + 1];
  const key = parts[parts.length - 1];
  if (platform === undefined || key === undefined || parts.length < head + 3) return undefined;
  if (kind !== 'files' && kind !== 'units') return undefined;
  return { file, kind, owner: parts.slice(0, head).join('/'), platform, key };
}

type Entries = Map<string, string>;

/** One folder's templates, rendered, into `files`/`units` by file name (later ones win). */
function collect(
  located: readonly Located[],
  dirs: readonly (readonly [string, string])[],
  role: string,
  cc: ControllerConfig,
): Result<{ files: Entries; units: Entries }, TemplateError> {
  const files: Entries = new Map();
  const units: Entries = new Map();
  const context = templateContext(cc, role);
  for (const [owner, platform] of dirs) {
    const here = located
      .filter((l) => l.owner === owner && l.platform === platform)
      .sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
    for (const l of here) {
      const into = l.kind === 'files' ? files : units;
      if (l.file.content.length === 0) {
        into.delete(l.key);
        continue;
      }
      const rendered = renderTemplate(l.file.path, l.file.content, context);
      if (!rendered.ok) return err({ kind: 'Render', error: rendered.error });
      // A template that renders to nothing produces no entry (upstream skips it too).
      if (rendered.value.trim() !== '') into.set(l.key, rendered.value);
    }
  }
  return ok({ files, units });
}

function sortedValues(m: Entries): [string, string][] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

type Yaml = Record<string, unknown>;

function readYaml(path: string, text: string): Result<Yaml, TemplateError> {
  try {
    // YAML 1.1, as upstream reads templates: `mode: 0644` is octal.
    const value: unknown = parseYaml(text, { version: '1.1' });
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return err({ kind: 'InvalidEntry', path, message: 'expected a YAML mapping' });
    return ok(value as Yaml);
  } catch (e) {
    return err({ kind: 'InvalidEntry', path, message: errorText(e) });
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function owner(v: unknown): { name: string } | undefined {
  const name = typeof v === 'object' && v !== null ? str((v as Yaml)['name']) : undefined;
  return name === undefined ? undefined : { name };
}

function toFile(path: string, y: Yaml): Result<IgnitionFile, TemplateError> {
  const filePath = str(y['path']);
  if (filePath === undefined)
    return err({ kind: 'InvalidEntry', path, message: 'a file needs a path' });
  const contents = (y['contents'] ?? {}) as Yaml;
  const inline = str(contents['inline']);
  const source = str(contents['source']);
  const mode = y['mode'];
  if (mode !== undefined && (typeof mode !== 'number' || !Number.isInteger(mode)))
    return err({ kind: 'InvalidEntry', path, message: 'mode must be an integer (e.g. 0644)' });
  const user = owner(y['user']);
  const group = owner(y['group']);
  const file: IgnitionFile = {
    ...(group === undefined ? {} : { group }),
    overwrite: y['overwrite'] === false ? false : true,
    path: filePath,
    ...(user === undefined ? {} : { user }),
    contents: {
      source:
        inline !== undefined ? encodeDataUrl(new TextEncoder().encode(inline)) : (source ?? ''),
    },
    ...(mode === undefined ? {} : { mode }),
  };
  return ok(file);
}

function toUnit(path: string, y: Yaml): Result<IgnitionUnit, TemplateError> {
  const name = str(y['name']);
  if (name === undefined)
    return err({ kind: 'InvalidEntry', path, message: 'a unit needs a name' });
  const dropins: { name: string; contents?: string }[] = [];
  const rawDropins = y['dropins'] ?? [];
  if (!Array.isArray(rawDropins))
    return err({ kind: 'InvalidEntry', path, message: 'dropins must be a list' });
  for (const d of rawDropins as unknown[]) {
    const dy = (typeof d === 'object' && d !== null ? d : {}) as Yaml;
    const dname = str(dy['name']);
    if (dname === undefined)
      return err({ kind: 'InvalidEntry', path, message: 'a dropin needs a name' });
    const contents = str(dy['contents']);
    dropins.push({ name: dname, ...(contents === undefined ? {} : { contents }) });
  }
  const contents = str(y['contents']);
  return ok({
    ...(contents === undefined ? {} : { contents }),
    ...(dropins.length === 0 ? {} : { dropins }),
    ...(typeof y['enabled'] === 'boolean' ? { enabled: y['enabled'] } : {}),
    ...(typeof y['mask'] === 'boolean' ? { mask: y['mask'] } : {}),
    name,
  });
}

function buildIgnition(
  name: string,
  files: Entries,
  units: Entries,
): Result<Record<string, unknown>, TemplateError> {
  const ignFiles: IgnitionFile[] = [];
  for (const [key, text] of sortedValues(files)) {
    const y = readYaml(`${name}/files/${key}`, text);
    if (!y.ok) return y;
    const f = toFile(`${name}/files/${key}`, y.value);
    if (!f.ok) return f;
    ignFiles.push(f.value);
  }
  const ignUnits: IgnitionUnit[] = [];
  for (const [key, text] of sortedValues(units)) {
    const y = readYaml(`${name}/units/${key}`, text);
    if (!y.ok) return y;
    const u = toUnit(`${name}/units/${key}`, y.value);
    if (!u.ok) return u;
    ignUnits.push(u.value);
  }
  const config: IgnitionConfig = {
    ignition: { version: GeneratedSpecVersion },
    ...(ignFiles.length === 0 ? {} : { storage: { files: ignFiles } }),
    ...(ignUnits.length === 0 ? {} : { systemd: { units: ignUnits } }),
  };
  const text = serializeIgnition(config);
  const parsed = parseIgnition(text);
  if (!parsed.ok) {
    const e = parsed.error;
    const report = e.kind === 'Invalid' ? formatReport(e.report) : describeIgnitionParseError(e);
    return err({ kind: 'InvalidConfig', name, report });
  }
  if (isFatal(parsed.value.report))
    return err({ kind: 'InvalidConfig', name, report: formatReport(parsed.value.report) });
  return ok(JSON.parse(text) as Record<string, unknown>);
}

function machineConfig(
  input: GenerateTemplateInput,
  role: string,
  name: string,
  config: Record<string, unknown>,
): MachineConfig {
  return {
    apiVersion: ApiVersion,
    kind: 'MachineConfig',
    metadata: {
      name,
      labels: { [Label.role]: role },
      annotations: { [Annotation.generatedByControllerVersion]: input.versionHash },
      ...(input.owner === undefined ? {} : { ownerReferences: [input.owner] }),
    },
    // The OS image comes from the ControllerConfig at render time, never from a template
    // (docs/reference/render.md §3.4).
    spec: { osImageURL: '', baseOSExtensionsContainerImage: '', config },
  };
}

function distinctSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/**
 * Every role's base MachineConfigs, roles and names in sorted order. Fails on the first template
 * that does not render or does not make a valid Ignition config.
 */
export function generateTemplateMachineConfigs(
  input: GenerateTemplateInput,
): Result<MachineConfig[], TemplateError> {
  const platform = templatePlatform(input.controllerConfig);
  if (platform === BaseDir) return err({ kind: 'UnsupportedPlatform', platform });
  const located = input.templates.flatMap((f) => locate(f) ?? []);
  const owners = distinctSorted(located.filter((l) => l.owner !== CommonDir).map((l) => l.owner));
  if (owners.length === 0) return err({ kind: 'NoTemplates' });
  const out: MachineConfig[] = [];
  const rolesWithCommon = new Set<string>();
  for (const ownerDir of owners) {
    const [role = '', name = ''] = ownerDir.split('/');
    const dirs: (readonly [string, string])[] = [];
    if (!rolesWithCommon.has(role)) {
      rolesWithCommon.add(role);
      dirs.push([CommonDir, BaseDir], [CommonDir, platform]);
    }
    dirs.push([ownerDir, BaseDir], [ownerDir, platform]);
    const collected = collect(located, dirs, role, input.controllerConfig);
    if (!collected.ok) return collected;
    const config = buildIgnition(name, collected.value.files, collected.value.units);
    if (!config.ok) return config;
    out.push(machineConfig(input, role, name, config.value));
  }
  return ok(out);
}
