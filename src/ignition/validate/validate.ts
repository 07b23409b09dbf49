/**
 * Validation of an Ignition config of a known spec version, reproducing what Ignition reports when
 * it parses and validates that version: the same entries (kind, JSON path, message) that
 * `ignition-validate` prints. Works on the parsed JSON value; the caller has already read the
 * version (and rejected unknown ones).
 */
import type { Report } from '../report.js';
import type { SpecVersion } from '../versions.js';
import type { Minor3 } from './schema.js';
import { validateV22 } from './validate-v2-2.js';
import { validateV3 } from './validate-v3.js';

/**
 * Which Ignition release's rules apply to specs 3.0–3.3. `v2.14` (the default) matches the
 * Debian `ignition-validate`; `latest` adds the checks later releases apply to every 3.x spec
 * (paths conflicting with units, hard-link owners, template units, filesystems over partitioned
 * disks). Specs 3.4 and 3.5 always get `latest`.
 */
type IgnitionRules = 'v2.14' | 'latest';

export interface ValidateOptions {
  readonly rules?: IgnitionRules;
}

const MINORS: Readonly<Record<Exclude<SpecVersion, '2.2.0'>, Minor3>> = {
  '3.0.0': 0,
  '3.1.0': 1,
  '3.2.0': 2,
  '3.3.0': 3,
  '3.4.0': 4,
  '3.5.0': 5,
};

export function validateIgnition(
  config: unknown,
  version: SpecVersion,
  options: ValidateOptions = {},
): Report {
  if (version === '2.2.0') return { entries: validateV22(config) };
  const minor = MINORS[version];
  const latest = options.rules === 'latest' || minor >= 4;
  return { entries: validateV3(config, { minor, latest, version }) };
}
