/**
 * Validation of an Ignition config of a known spec version, reproducing what Ignition reports when
 * it parses and validates that version: the same entries (kind, JSON path, message) that
 * `ignition-validate` prints. Works on the parsed JSON value; the caller has already read the
 * version (and rejected unknown ones).
 */
import type { Report } from '../report.js';
import { IgnitionSpecs } from '../specs/ignition-specs.js';
import { majorOf, type SpecFamily } from '../specs/spec-family.js';
import type { SpecVersion } from '../versions.js';
import { validateV22 } from './validate-v2-2.js';
import { validateV3 } from './validate-v3.js';

/**
 * Which Ignition release's rules apply to specs 3.0–3.3. `v2.14` (the default) matches the
 * Debian `ignition-validate`; `latest` adds the checks later releases apply to every 3.x spec
 * (paths conflicting with units, hard-link owners, template units, filesystems over partitioned
 * disks). Specs 3.4 and later always get `latest`.
 */
type IgnitionRules = 'v2.14' | 'latest';

export interface ValidateOptions {
  readonly rules?: IgnitionRules;
}

export function validateIgnition(
  config: unknown,
  version: SpecVersion,
  options: ValidateOptions = {},
): Report {
  return validateIgnitionIn(IgnitionSpecs, config, version, options);
}

/** `validateIgnition` for a spec of `specs`, against that spec's Go types. */
export function validateIgnitionIn(
  specs: SpecFamily,
  config: unknown,
  version: string,
  options: ValidateOptions = {},
): Report {
  const schema = specs.schema(version);
  if (majorOf(version) === 2) return { entries: validateV22(config, schema) };
  const { minor } = specs.row(version);
  const latest = options.rules === 'latest' || minor >= 4;
  return { entries: validateV3(config, schema, { minor, latest, version }) };
}
