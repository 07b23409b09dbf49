/**
 * What validating a MachineConfig found, kept per object version: a MachineConfig with the same
 * uid and resourceVersion has the same spec, so the render controller, which renders every pool
 * again whenever any selected config, the ControllerConfig or a pool changes, validates (and
 * parses) each MachineConfig once per version instead of once per render. Objects without a uid
 * or resourceVersion (`mco render` reads files) are validated every time.
 *
 * The kept parse results share objects with the MachineConfigs they came from and are handed to
 * every later merge: like the informer's objects, neither may be changed.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { ParseResult } from '../../ignition/parse.js';
import type { Result } from '../../lib/result.js';
import {
  validateMachineConfig,
  type MachineConfigValidationError,
} from './validate-machine-config.js';

export type MachineConfigValidation = Result<ParseResult | undefined, MachineConfigValidationError>;

export class MachineConfigValidationCache {
  readonly #byUid = new Map<
    string,
    { readonly rv: string; readonly result: MachineConfigValidation }
  >();

  /** validateMachineConfig(mc.spec), from the cache when this version was validated before. */
  validate(mc: MachineConfig): MachineConfigValidation {
    const { uid, resourceVersion: rv } = mc.metadata;
    if (uid === undefined || uid === '' || rv === undefined || rv === '')
      return validateMachineConfig(mc.spec);
    const kept = this.#byUid.get(uid);
    if (kept !== undefined && kept.rv === rv) return kept.result;
    const result = validateMachineConfig(mc.spec);
    this.#byUid.set(uid, { rv, result });
    return result;
  }

  /** Forgets every MachineConfig not in `live` (deleted ones); call with the informer's list. */
  retain(live: readonly MachineConfig[]): void {
    if (this.#byUid.size <= live.length) return;
    const uids = new Set(live.map((mc) => mc.metadata.uid));
    for (const uid of this.#byUid.keys()) if (!uids.has(uid)) this.#byUid.delete(uid);
  }

  get size(): number {
    return this.#byUid.size;
  }
}
