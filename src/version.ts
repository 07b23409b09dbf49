/**
 * The release this build is. `raw` plays upstream's `version.Raw` (the operator version, the
 * ControllerConfig `generated-by-version` gate) and `hash` upstream's `version.Hash` (the
 * `generated-by-controller-version` annotation on generated MachineConfigs).
 */
export const McoVersion = {
  raw: '0.1.0',
  hash: 'mco-ts-0.1.0',
} as const;

export type McoVersion = typeof McoVersion;
