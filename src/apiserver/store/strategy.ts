/**
 * Per-kind write behaviour, as each kind's registry strategy upstream defines it: built-in kinds
 * take theirs from their descriptors (kinds/), custom resources share one (generation tracked,
 * resourceVersion required on PUT, status dropped on create when they have a status subresource)
 * with MachineConfig's validation (machine-config-admission.ts), warnings
 * (machine-config-warnings.ts) and the audit's change stamp (machine-config-change-stamp.ts) on top.
 */
import { BuiltInKinds } from '../kinds/index.js';
import type { ResourceType } from '../resource-type.js';
import {
  BuiltInStrategy,
  noFieldErrors,
  noNormalization,
  type KindStrategy,
} from './kind-strategy.js';
import { machineConfigErrors } from './machine-config-admission.js';
import { stampMachineConfigChange } from './machine-config-change-stamp.js';
import { machineConfigWarnings } from './machine-config-warnings.js';

/** Each built-in kind's strategy: the default with what its descriptor overrides. */
const BuiltIns = new Map<string, KindStrategy>(
  BuiltInKinds.map((k) => [`${k.group}/${k.kind}`, { ...BuiltInStrategy, ...k.strategy }]),
);

export function strategyFor(rt: ResourceType): KindStrategy {
  const known = BuiltIns.get(`${rt.group}/${rt.kind}`);
  if (known !== undefined) return known;
  if (rt.builtIn) return BuiltInStrategy;
  const custom: KindStrategy = {
    tracksGeneration: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: rt.subresources.includes('status') ? 'drop' : 'keep',
    controllerFinalized: false,
    normalize: noNormalization,
    validate: noFieldErrors,
  };
  return rt.group === 'machineconfiguration.openshift.io' && rt.kind === 'MachineConfig'
    ? {
        ...custom,
        validate: machineConfigErrors,
        warnings: machineConfigWarnings,
        prepareForCreate: (obj, user, now) => {
          stampMachineConfigChange(undefined, obj, user, now);
        },
        prepareForUpdate: (old, next, subresource, { now, user }) => {
          if (subresource === undefined) stampMachineConfigChange(old, next, user, now);
        },
      }
    : custom;
}

/** True when writes to the main resource leave `.status` alone. */
export function hasStatusSubresource(rt: ResourceType): boolean {
  return rt.subresources.includes('status');
}
