/**
 * Ignition spec versions the system reads and writes (the rows of specs/ignition-specs.ts), and
 * the two versions the rest of the system names.
 */
import { IgnitionSpecs, SpecRows, type SpecVersion } from './specs/ignition-specs.js';

export type { SpecVersion };

export const SpecVersions: readonly SpecVersion[] = SpecRows.map((r) => r.version);

/**
 * The newest spec: the internal representation every config is translated up to, merged in and
 * translated down from.
 */
export const InternalSpecVersion = IgnitionSpecs.internal as SpecVersion;

/**
 * The version the MachineConfigs this system generates declare (templates, kubelet, container
 * runtime and registries configs, the pointer config). It does not follow the internal spec: a
 * generated config's bytes are what its controller compares with the stored object to decide
 * whether to write it again (and what `kubectl get mc` shows), so a newer internal spec must not
 * rewrite every generated config. Rendered names do not depend on it: they hash the merged config,
 * which is in the internal spec whatever its inputs declare.
 */
export const GeneratedSpecVersion = '3.5.0' satisfies SpecVersion;

/** `2.2,3.0,3.1,3.2,3.3,3.4,3.5`, as upstream joins GetSupportedMinorVersions(). */
export const SupportedMinorVersionsText = IgnitionSpecs.minorsText;

export function isSpecVersion(v: string): v is SpecVersion {
  return IgnitionSpecs.isVersion(v);
}
