/**
 * MCO's own entry points for reading the Ignition config of a MachineConfig
 * (pkg/controller/common): `IgnParseWrapper` (parse any supported spec, keep it) and
 * `ParseAndConvertConfig` (parse, de-duplicate a spec 2 config, translate to 3.5), with their
 * exact error texts.
 */
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import type { IgnitionParseError, ParseResult, RawIgnition } from './parse.js';
import { describeIgnitionParseError, describeMalformed, parseIgnition } from './parse.js';
import { formatReport } from './report.js';
import type { ParsedIgnition, TranslateError } from './translate-up.js';
import { describeTranslateError, toLatest } from './translate-up.js';
import type { IgnitionConfig } from './types.js';

export type McoParseError =
  /** From `ignParseWrapper`: upstream's unprefixed texts. */
  | { readonly kind: 'Unparsable'; readonly error: IgnitionParseError }
  /** From `parseAndConvertConfig`: `failed to parse Ignition config: <wrapper text>`. */
  | { readonly kind: 'ParseFailed'; readonly error: IgnitionParseError }
  /** From `parseAndConvertConfig`, while taking a spec 2 config to spec 3. */
  | { readonly kind: 'ConvertFailed'; readonly error: TranslateError };

/**
 * `IgnParseWrapper`'s error text. Differs from `describeIgnitionParseError` only for a config
 * that fails validation, which the wrapper reports as Ignition's parse error with the report.
 */
function describeIgnParseWrapperError(e: IgnitionParseError): string {
  if (e.kind === 'Invalid') {
    const report = formatReport(e.report);
    return e.version === '2.2.0'
      ? `parsing Ignition spec v2 failed with error: config is not valid\nReport: ${report}`
      : `parsing Ignition config spec v3 failed with error: config is not valid\nReport: ${report}`;
  }
  if (e.kind === 'Malformed') {
    return `parsing Ignition config spec v3 failed with error: config is not valid\nReport: ${describeMalformed(e)}`;
  }
  return describeIgnitionParseError(e);
}

export function describeMcoParseError(e: McoParseError): string {
  switch (e.kind) {
    case 'Unparsable':
      return describeIgnParseWrapperError(e.error);
    case 'ParseFailed':
      return `failed to parse Ignition config: ${describeIgnParseWrapperError(e.error)}`;
    case 'ConvertFailed':
      return e.error.kind === 'UnexpectedUser'
        ? describeTranslateError(e.error)
        : `failed to convert Ignition config spec v2 to v3: ${describeTranslateError(e.error)}`;
  }
}

/** `IgnParseWrapper`: the config in its own spec (3.x, or 2.2 when it is not a 3.x config). */
export function ignParseWrapper(raw: RawIgnition): Result<ParseResult, McoParseError> {
  const parsed = parseIgnition(raw);
  return parsed.ok ? parsed : err({ kind: 'Unparsable', error: parsed.error });
}

/** `ParseAndConvertConfig`: any supported config as spec 3.5. */
export function parseAndConvertConfig(raw: RawIgnition): Result<IgnitionConfig, McoParseError> {
  const parsed = parseIgnition(raw);
  if (!parsed.ok) return err({ kind: 'ParseFailed', error: parsed.error });
  return convertParsedConfig(parsed.value);
}

/**
 * The second half of `ParseAndConvertConfig`, for a config `parseIgnition` already read (the
 * render path validates every config first and keeps the result, so it is not parsed twice).
 * The result may share parts with `parsed`, which must not be changed afterwards.
 */
export function convertParsedConfig(parsed: ParsedIgnition): Result<IgnitionConfig, McoParseError> {
  // A parse result is canonical and nobody else's: no need for a defensive copy.
  const latest = toLatest(parsed, { fresh: true });
  return latest.ok ? ok(latest.value) : err({ kind: 'ConvertFailed', error: latest.error });
}
