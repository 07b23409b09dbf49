import { describe, expect, it } from 'vitest';
import {
  Annotation,
  ApiVersion,
  DaemonState,
  KernelType,
  Label,
  PoolConditionType,
  poolSelectorLabel,
  SupportedExtensions,
  UpdateInProgressTaint,
} from './constants.js';

describe('MCO protocol strings', () => {
  it.each<[keyof typeof Annotation, string]>([
    ['currentConfig', 'machineconfiguration.openshift.io/currentConfig'],
    ['desiredConfig', 'machineconfiguration.openshift.io/desiredConfig'],
    ['state', 'machineconfiguration.openshift.io/state'],
    ['reason', 'machineconfiguration.openshift.io/reason'],
    ['desiredDrain', 'machineconfiguration.openshift.io/desiredDrain'],
    ['lastAppliedDrain', 'machineconfiguration.openshift.io/lastAppliedDrain'],
    ['postConfigAction', 'machineconfiguration.openshift.io/post-config-action'],
    [
      'ostreeFinalizeStagedFailure',
      'machineconfiguration.openshift.io/ostree-finalize-staged-failure',
    ],
    [
      'generatedByControllerVersion',
      'machineconfiguration.openshift.io/generated-by-controller-version',
    ],
    ['osImageUrlOverridden', 'machineconfiguration.openshift.io/os-image-url-overridden'],
    ['serviceCaRotate', 'machineconfiguration.openshift.io/service-ca-rotate'],
  ])('Annotation.%s', (name, key) => {
    expect(Annotation[name]).toBe(key);
  });

  it('every annotation key is in the MCO namespace and unique', () => {
    const keys = Object.values(Annotation);
    expect(keys.every((k) => k.startsWith('machineconfiguration.openshift.io/'))).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(22);
  });

  it('labels and helpers', () => {
    expect(Label.role).toBe('machineconfiguration.openshift.io/role');
    expect(Label.requiredForUpgrade).toBe(
      'operator.machineconfiguration.openshift.io/required-for-upgrade',
    );
    expect(poolSelectorLabel('worker')).toBe(
      'pools.operator.machineconfiguration.openshift.io/worker',
    );
    expect(Label.nodeRoleControlPlane).toBe('node-role.kubernetes.io/control-plane');
    expect(ApiVersion).toBe('machineconfiguration.openshift.io/v1');
  });

  it('states, conditions, kernel types, taint', () => {
    expect(Object.values(DaemonState)).toEqual(['Done', 'Working', 'Degraded', 'Unreconcilable']);
    expect(Object.values(PoolConditionType)).toContain('RenderDegraded');
    expect(Object.values(KernelType)).toEqual(['default', 'realtime', '64k-pages']);
    expect(UpdateInProgressTaint).toEqual({ key: 'UpdateInProgress', effect: 'PreferNoSchedule' });
  });

  it('extension allowlist', () => {
    expect(Object.keys(SupportedExtensions).sort()).toEqual([
      'ipsec',
      'kerberos',
      'kernel-devel',
      'sandboxed-containers',
      'sysstat',
      'two-node-ha',
      'usbguard',
    ]);
    expect(SupportedExtensions['ipsec']).toEqual([
      'NetworkManager-libreswan',
      'libreswan',
      'openvswitch3.5-ipsec',
    ]);
    expect(Object.hasOwn(SupportedExtensions, 'toString')).toBe(false);
  });
});
