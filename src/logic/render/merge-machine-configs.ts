/**
 * MergeMachineConfigs: many MachineConfigs in, one merged spec out, exactly as upstream merges them
 * (docs/reference/render.md §3.4). Worker-role configs come first so a custom pool's own configs override
 * the worker ones whatever their names; Ignition is merged with Ignition 3 semantics; the other
 * spec fields follow their own per-field rules.
 */
import { Annotation, Label } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  convertParsedConfig,
  describeMcoParseError,
  parseAndConvertConfig,
} from '../../ignition/mco-parse.js';
import type { ParseResult } from '../../ignition/parse.js';
import { compactIgnition } from '../../ignition/serialize.js';
import type { IgnitionConfig } from '../../ignition/types.js';
import { InternalSpecVersion } from '../../ignition/versions.js';
import { err, ok, type Result } from '../../lib/result.js';
import { mergeIgnitionConfigs } from './merge-ignition-configs.js';

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

const KernelType = {
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

/** Configs whose Ignition was already parsed (by validation), so merging does not parse again. */
export type ParsedConfigs = ReadonlyMap<MachineConfig, ParseResult>;

/**
 * Each parse result's conversion to the latest spec, kept as long as the result is: the render
 * controller keeps parse results per MachineConfig version (validation-cache.ts) and renders
 * again with the same ones, and neither a parse result nor its conversion is ever changed.
 */
const conversions = new WeakMap<ParseResult, ReturnType<typeof convertParsedConfig>>();

function conversionOf(parsed: ParseResult): ReturnType<typeof convertParsedConfig> {
  let result = conversions.get(parsed);
  if (result === undefined) {
    result = convertParsedConfig(parsed);
    conversions.set(parsed, result);
  }
  return result;
}

function parseConfig(mc: MachineConfig, known: ParsedConfigs): Result<IgnitionConfig, MergeError> {
  const seen = known.get(mc);
  const result = seen === undefined ? parseAndConvertConfig(mc.spec?.config) : conversionOf(seen);
  if (!result.ok) {
    return err({
      kind: 'IgnitionParse',
      config: mc.metadata.name ?? '',
      message: describeMcoParseError(result.error),
    });
  }
  return ok(result.value);
}

/** Parses the configs in merge order (the first failure is the error), then merges them. */
function mergeIgnitionOf(
  ordered: readonly MachineConfig[],
  known: ParsedConfigs,
): Result<IgnitionConfig, MergeError> {
  const [first, ...rest] = ordered;
  let base: IgnitionConfig = { ignition: { version: InternalSpecVersion } };
  if (first !== undefined && hasConfig(first)) {
    const parsed = parseConfig(first, known);
    if (!parsed.ok) return parsed;
    base = parsed.value;
  }
  const children: IgnitionConfig[] = [];
  for (const mc of rest) {
    if (!hasConfig(mc)) continue;
    const child = parseConfig(mc, known);
    if (!child.ok) return child;
    children.push(child.value);
  }
  return ok(mergeIgnitionConfigs(base, children));
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

/**
 * Merges the selected configs (any order) over the base images. Empty input is the caller's error.
 * `parsed` holds configs whose Ignition the caller already parsed (validation does); the others
 * are parsed here.
 */
export function mergeMachineConfigs(
  configs: readonly MachineConfig[],
  base: BaseImages,
  parsed: ParsedConfigs = new Map(),
): Result<MergedMachineConfigs, MergeError> {
  const ordered = mergeOrder(configs);
  if (!ordered.ok) return ordered;
  const order = ordered.value;
  const ignition = mergeIgnitionOf(order, parsed);
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
