/**
 * MergeMachineConfigs: many MachineConfigs in, one merged spec out, exactly as upstream merges them
 * (mco-behavior.md §3.4). Worker-role configs come first so a custom pool's own configs override
 * the worker ones whatever their names; Ignition is merged with Ignition 3 semantics; the other
 * spec fields follow their own per-field rules.
 */
import { Annotation, Label } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { mergeIgnition } from '../../ignition/merge.js';
import { describeMcoParseError, parseAndConvertConfig } from '../../ignition/mco-parse.js';
import { compactIgnition } from '../../ignition/serialize.js';
import type { IgnitionConfig, IgnitionFile } from '../../ignition/types.js';
import { MaxSpecVersion } from '../../ignition/versions.js';
import { err, ok, type Result } from '../../lib/result.js';

/** The base images a rendered config starts from (ControllerConfig spec). */
export interface BaseImages {
  readonly osImageURL: string;
  readonly baseOSExtensionsContainerImage: string;
}

/** A rendered MachineConfig spec in upstream's JSON form: every field present. */
export interface RenderedSpec {
  readonly osImageURL: string;
  readonly baseOSExtensionsContainerImage: string;
  readonly config: Record<string, unknown>;
  readonly kernelArguments: string[];
  readonly extensions: string[];
  readonly fips: boolean;
  readonly kernelType: string;
}

export type MergeError =
  | { readonly kind: 'MissingLabels'; readonly config: string }
  | { readonly kind: 'IgnitionParse'; readonly config: string; readonly message: string }
  | { readonly kind: 'KernelDevelWithKernelType'; readonly kernelType: string };

export function describeMergeError(e: MergeError): string {
  switch (e.kind) {
    case 'MissingLabels':
      return `cannot find label in MachineConfig ${e.config}`;
    case 'IgnitionParse':
      return e.message;
    case 'KernelDevelWithKernelType':
      return `installing kernel-devel extension is not supported with kernelType: ${e.kernelType}`;
  }
}

export const KernelType = {
  Default: 'default',
  Realtime: 'realtime',
  SixtyFourKPages: '64k-pages',
} as const;

/**
 * Merge order: configs labelled role=worker first, then the rest, each group by name (stable).
 * Upstream sorts the caller's slice in place; here the order is returned instead.
 */
export function mergeOrder(configs: readonly MachineConfig[]): Result<MachineConfig[], MergeError> {
  const workers: MachineConfig[] = [];
  const others: MachineConfig[] = [];
  for (const mc of configs) {
    const labels = mc.metadata.labels;
    if (labels === undefined) return err({ kind: 'MissingLabels', config: mc.metadata.name ?? '' });
    (labels[Label.role] === 'worker' ? workers : others).push(mc);
  }
  const byName = (a: MachineConfig, b: MachineConfig): number =>
    compareNames(a.metadata.name, b.metadata.name);
  return ok([...workers.sort(byName), ...others.sort(byName)]);
}

/** Go compares strings byte-wise; names are ASCII, so code units order the same way. */
function compareNames(a: string | undefined, b: string | undefined): number {
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

function hasConfig(mc: MachineConfig): boolean {
  return mc.spec?.config !== undefined && mc.spec.config !== null;
}

function parseConfig(mc: MachineConfig): Result<IgnitionConfig, MergeError> {
  const parsed = parseAndConvertConfig(mc.spec?.config);
  if (!parsed.ok) {
    return err({
      kind: 'IgnitionParse',
      config: mc.metadata.name ?? '',
      message: describeMcoParseError(parsed.error),
    });
  }
  return ok(parsed.value);
}

function mapFiles(config: IgnitionConfig, f: (file: IgnitionFile) => IgnitionFile): IgnitionConfig {
  const files = config.storage?.files;
  if (files === undefined) return config;
  return { ...config, storage: { ...config.storage, files: files.map(f) } };
}

/** Upstream marks "no compression" explicitly on the child so an override clears a parent's gzip. */
function withExplicitNoCompression(file: IgnitionFile): IgnitionFile {
  if (file.contents?.compression !== undefined) return file;
  return { ...file, contents: { ...file.contents, compression: '' } };
}

function withoutEmptyCompression(file: IgnitionFile): IgnitionFile {
  if (file.contents?.compression !== '') return file;
  const contents = { ...file.contents };
  delete contents.compression;
  return { ...file, contents };
}

function withDefaultOverwrite(file: IgnitionFile): IgnitionFile {
  return file.overwrite === undefined ? { ...file, overwrite: true } : file;
}

function mergeIgnitionOf(ordered: readonly MachineConfig[]): Result<IgnitionConfig, MergeError> {
  const [first, ...rest] = ordered;
  let out: IgnitionConfig = { ignition: { version: MaxSpecVersion } };
  if (first !== undefined && hasConfig(first)) {
    const parsed = parseConfig(first);
    if (!parsed.ok) return parsed;
    out = parsed.value;
  }
  for (const mc of rest) {
    if (!hasConfig(mc)) continue;
    const child = parseConfig(mc);
    if (!child.ok) return child;
    out = mapFiles(
      mergeIgnition(out, mapFiles(child.value, withExplicitNoCompression)),
      withoutEmptyCompression,
    );
  }
  return ok(mapFiles(out, withDefaultOverwrite));
}

function hasGeneratedAnnotation(mc: MachineConfig): boolean {
  const v = mc.metadata.annotations?.[Annotation.generatedByControllerVersion];
  return v !== undefined && v !== '';
}

/** Last non-empty value wins; generated configs never choose the OS image (upstream skips them). */
function imageOverride(
  ordered: readonly MachineConfig[],
  base: string,
  pick: (mc: MachineConfig) => string | undefined,
): string {
  let image = base;
  for (const mc of ordered) {
    if (hasGeneratedAnnotation(mc)) continue;
    const v = pick(mc);
    if (v !== undefined && v !== '') image = v;
  }
  return image;
}

function mergedKernelType(ordered: readonly MachineConfig[]): string {
  let kernelType: string = KernelType.Default;
  for (const mc of ordered) {
    const kt = mc.spec?.kernelType;
    if (kt === KernelType.Realtime || kt === KernelType.SixtyFourKPages) kernelType = kt;
  }
  return kernelType;
}

export interface MergedMachineConfigs {
  readonly spec: RenderedSpec;
  /** The configs in merge order: the pool's `spec.configuration.source` lists them this way. */
  readonly order: readonly MachineConfig[];
}

/** Merges the selected configs (any order) over the base images. Empty input is the caller's error. */
export function mergeMachineConfigs(
  configs: readonly MachineConfig[],
  base: BaseImages,
): Result<MergedMachineConfigs, MergeError> {
  const ordered = mergeOrder(configs);
  if (!ordered.ok) return ordered;
  const order = ordered.value;
  const ignition = mergeIgnitionOf(order);
  if (!ignition.ok) return ignition;

  const kernelType = mergedKernelType(order);
  const extensions = order.flatMap((mc) => mc.spec?.extensions ?? []);
  if (kernelType !== KernelType.Default && extensions.includes('kernel-devel')) {
    return err({ kind: 'KernelDevelWithKernelType', kernelType });
  }
  return ok({
    order,
    spec: {
      osImageURL: imageOverride(order, base.osImageURL, (mc) => mc.spec?.osImageURL),
      baseOSExtensionsContainerImage: imageOverride(
        order,
        base.baseOSExtensionsContainerImage,
        (mc) => mc.spec?.baseOSExtensionsContainerImage,
      ),
      config: compactIgnition(ignition.value),
      kernelArguments: order.flatMap((mc) => mc.spec?.kernelArguments ?? []),
      extensions,
      fips: order.some((mc) => mc.spec?.fips === true),
      kernelType,
    },
  });
}
