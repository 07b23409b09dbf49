/**
 * Does applying the change need a drain (docs/reference/daemon.md §7.5)? A reboot always drains; a
 * registries.conf change drains only when it is not safe; other rebootless actions never do.
 * Both action vocabularies are handled: node disruption policy actions and the legacy
 * (firstboot) strings.
 */
import { ok, type Result } from '../../lib/result.js';
import { LegacyAction } from './legacy-post-config-action.js';
import type { PolicyAction } from './policy-types.js';
import {
  isSafeContainerRegistryConfChange,
  type RegistriesConfChange,
  type RegistriesConfError,
} from './registries-conf.js';

export type PostConfigActions =
  | { readonly kind: 'policies'; readonly actions: readonly PolicyAction[] }
  | { readonly kind: 'legacy'; readonly actions: readonly LegacyAction[] };

export interface DrainOptions {
  /**
   * The image-registry drain override ConfigMap exists: registries.conf changes never drain
   * (upstream warns that this may not be safe).
   */
  readonly overrideImageRegistryDrain?: boolean;
}

function registriesNeedDrain(
  registries: RegistriesConfChange,
  options: DrainOptions,
): Result<boolean, RegistriesConfError> {
  if (options.overrideImageRegistryDrain === true) return ok(false);
  const safe = isSafeContainerRegistryConfChange(registries.oldToml, registries.newToml);
  return safe.ok ? ok(!safe.value) : safe;
}

/**
 * isDrainRequiredForNodeDisruptionActions / isDrainRequired. `registries` is the registries.conf
 * text of both configs (registriesConfChange); it is only parsed when the decision depends on it.
 */
export function isDrainRequired(
  actions: PostConfigActions,
  registries: RegistriesConfChange,
  options: DrainOptions = {},
): Result<boolean, RegistriesConfError> {
  if (actions.kind === 'policies') {
    const types = new Set(actions.actions.map((a) => a.type));
    if (types.has('Reboot') || types.has('Drain')) return ok(true);
    // Special is reserved for registries.conf, so it is known to have changed
    if (types.has('Special')) return registriesNeedDrain(registries, options);
    return ok(false);
  }
  const a = actions.actions;
  if (a.includes(LegacyAction.Reboot)) return ok(true);
  if (a.includes(LegacyAction.ReloadCrio) || a.includes(LegacyAction.RestartCrio)) {
    return registries.changed ? registriesNeedDrain(registries, options) : ok(false);
  }
  if (a.includes(LegacyAction.None)) return ok(false);
  // anything unknown drains, to be safe
  return ok(true);
}
