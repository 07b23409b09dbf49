/**
 * Names of rendered MachineConfigs, byte-compatible with upstream `getMachineConfigHashedName`
 * (pkg/controller/render/hash.go): `rendered-<pool>-` + hex(md5(salt ‖ ghodss/yaml.Marshal(spec))).
 * Only the spec is hashed, so the same spec yields the same suffix in every pool.
 */
import { createHash } from 'node:crypto';

import { writeGoYaml, type JsonValue } from '../../lib/go-yaml.js';

/** The fixed 80-byte salt upstream feeds to the hash before the YAML. */
const SALT = Uint8Array.from([
  16, 124, 206, 228, 139, 56, 175, 175, 79, 229, 134, 118, 157, 154, 211, 110, 25, 93, 47, 253, 172,
  106, 37, 7, 174, 13, 160, 185, 110, 17, 87, 52, 219, 131, 12, 206, 218, 141, 116, 135, 188, 181,
  192, 151, 233, 62, 126, 165, 64, 83, 179, 119, 15, 168, 208, 197, 146, 107, 58, 227, 133, 188,
  238, 26, 33, 26, 235, 202, 32, 173, 31, 234, 41, 144, 148, 79, 6, 206, 23, 22,
]);

/**
 * Lower-case hex MD5 of the salt followed by the spec's YAML. `spec` is the JSON form of
 * MachineConfigSpec (osImageURL, baseOSExtensionsContainerImage, config, kernelArguments,
 * extensions, fips, kernelType), with `config` the Ignition JSON parsed back to an object.
 */
export function renderedConfigHash(spec: JsonValue): string {
  const md5 = createHash('md5').update(SALT);
  // Streamed: the YAML of a big pool is megabytes, never needed as a whole.
  writeGoYaml(spec, (bytes) => md5.update(bytes));
  return md5.digest('hex');
}

/** `rendered-<pool>-<md5hex>` for the merged spec of `pool`. */
export function renderedConfigName(pool: string, spec: JsonValue): string {
  return `rendered-${pool}-${renderedConfigHash(spec)}`;
}
