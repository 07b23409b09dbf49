/**
 * Translation of a config in the internal spec down to an older spec, for Ignition clients that
 * ask for one (MCS Accept negotiation): the spec rows' down steps (translate-down-steps.ts), from
 * the internal spec to the target. There is no path to 3.0 (as upstream).
 */
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import { toCanonicalForm, type JsonRecord } from './canonical-form.js';
import type { ConfigPath } from './report.js';
import { IgnitionSpecs } from './specs/ignition-specs.js';
import type { SpecFamily } from './specs/spec-family.js';
import type { ParsedIgnition } from './translate-up.js';
import type { IgnitionConfig } from './types.js';
import type { SpecVersion } from './versions.js';

export type TranslateDownError =
  | { readonly kind: 'NoConversionPath'; readonly from: string; readonly to: string }
  | {
      readonly kind: 'Unrepresentable';
      readonly from: string;
      readonly to: string;
      /** The offending field, in the source config. */
      readonly path: ConfigPath;
      readonly message: string;
    };

export function describeTranslateDownError(e: TranslateDownError): string {
  switch (e.kind) {
    case 'NoConversionPath':
      return `conversion for source version ${e.from} to target version ${e.to} is not supported the requested conversion is not supported`;
    case 'Unrepresentable':
      return e.message;
  }
}

/**
 * A config of the internal spec (canonical form) as a config of spec `target`, carrying `target`
 * as its `ignition.version`.
 */
export function translateDown(
  config: IgnitionConfig,
  target: SpecVersion,
): Result<ParsedIgnition, TranslateDownError> {
  const r = translateDownIn(IgnitionSpecs, config as unknown as JsonRecord, target);
  return r.ok ? ok(r.value as unknown as ParsedIgnition) : r;
}

/** `translateDown` within a family of specs (`specs.internal` is the source spec). */
export function translateDownIn(
  specs: SpecFamily,
  config: JsonRecord,
  target: string,
): Result<{ readonly version: string; readonly config: JsonRecord }, TranslateDownError> {
  const path = specs.downPath(target);
  if (path === undefined)
    return err({ kind: 'NoConversionPath', from: specs.internal, to: target });
  let current = toCanonicalForm(config, specs.layout(specs.internal));
  for (const { from, to, step } of path) {
    const r = step(current, { from: specs.layout(from), to: specs.layout(to) });
    if (!r.ok) return err({ kind: 'Unrepresentable', from, to, ...r.error });
    current = r.value;
  }
  return ok({ version: target, config: current });
}
