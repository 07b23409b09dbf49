import { describe, expect, it } from 'vitest';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import {
  applyControllerConfig,
  controllerConfigCompleted,
  describeControllerConfigNotCompleted,
  type ControllerConfigInput,
} from './controller-config.js';

const input: ControllerConfigInput = {
  osImages: {
    baseOSContainerImage: 'quay.io/os:1',
    baseOSExtensionsContainerImage: 'quay.io/ext:1',
    osImageURL: '',
    releaseVersion: '4.17.0',
  },
  releaseVersion: '4.17.0',
  operatorVersion: '0.1.0',
  rootCAData: 'TUNTIENB',
  kubeAPIServerServingCAData: 'S1VCRSBDQQ==',
};

const A = 'machineconfiguration.openshift.io/';

describe('applyControllerConfig', () => {
  it('creates the singleton with the release images and the operator annotations', () => {
    const cc = applyControllerConfig(undefined, input);
    expect(cc?.metadata).toEqual({
      name: 'machine-config-controller',
      annotations: {
        [`${A}generated-by-version`]: '0.1.0',
        [`${A}service-ca-rotate`]: 'true',
        [`${A}release-image-version`]: '4.17.0',
      },
    });
    expect(cc?.spec).toMatchObject({
      baseOSContainerImage: 'quay.io/os:1',
      baseOSExtensionsContainerImage: 'quay.io/ext:1',
      osImageURL: '',
      rootCAData: 'TUNTIENB',
      kubeAPIServerServingCAData: 'S1VCRSBDQQ==',
      clusterDNSIP: '172.30.0.10',
      ipFamilies: 'IPv4',
      pullSecret: { namespace: 'openshift-config', name: 'pull-secret' },
    });
  });

  it('turns service-ca-rotate off once the CA is in place, then leaves the object alone', () => {
    // GIVEN the object as created (rotate=true) and stored with server fields
    const created = applyControllerConfig(undefined, input) as ControllerConfig;
    const stored: ControllerConfig = {
      ...created,
      metadata: { ...created.metadata, resourceVersion: '7', generation: 1, uid: 'u' },
    };
    // WHEN the next sync applies the same input THEN only the annotation flips
    const second = applyControllerConfig(stored, input) as ControllerConfig;
    expect(second.metadata.annotations?.[`${A}service-ca-rotate`]).toBe('false');
    expect(second.metadata.resourceVersion).toBe('7');
    expect(second.spec).toEqual(stored.spec);
    // AND after that nothing changes
    expect(applyControllerConfig(second, input)).toBeUndefined();
  });

  it('rotates again when the kubelet CA changes, and follows a new release', () => {
    const settled = applyControllerConfig(
      applyControllerConfig(undefined, input),
      input,
    ) as ControllerConfig;
    const next = applyControllerConfig(settled, {
      ...input,
      kubeAPIServerServingCAData: 'TkVXIENB',
      releaseVersion: '4.18.0',
      osImages: {
        ...input.osImages,
        baseOSContainerImage: 'quay.io/os:2',
        releaseVersion: '4.18.0',
      },
    });
    expect(next?.metadata.annotations).toEqual({
      [`${A}generated-by-version`]: '0.1.0',
      [`${A}service-ca-rotate`]: 'true',
      [`${A}release-image-version`]: '4.18.0',
    });
    expect(next?.spec.baseOSContainerImage).toBe('quay.io/os:2');
  });

  it('keeps annotations other writers put on the object', () => {
    const settled = applyControllerConfig(
      applyControllerConfig(undefined, input),
      input,
    ) as ControllerConfig;
    const other = {
      ...settled,
      metadata: { ...settled.metadata, annotations: { ...settled.metadata.annotations, x: 'y' } },
    };
    expect(applyControllerConfig(other, input)).toBeUndefined();
  });
});

function cc(
  generation: number,
  observed: number | undefined,
  conditions: Record<string, string>,
): ControllerConfig {
  const base = applyControllerConfig(undefined, input) as ControllerConfig;
  return {
    ...base,
    metadata: { ...base.metadata, generation },
    status: {
      ...(observed === undefined ? {} : { observedGeneration: observed }),
      conditions: Object.entries(conditions).map(([type, status]) => ({
        type: `TemplateController${type}`,
        status,
        lastTransitionTime: null,
      })),
    },
  };
}

describe('controllerConfigCompleted', () => {
  it.each([
    ['completed', cc(2, 2, { Completed: 'True', Running: 'False', Failing: 'False' }), undefined],
    [
      'older generation observed',
      cc(3, 2, { Completed: 'True' }),
      'status for ControllerConfig machine-config-controller is being reported for 2, expecting it for 3',
    ],
    [
      'never observed',
      cc(1, undefined, {}),
      'status for ControllerConfig machine-config-controller is being reported for 0, expecting it for 1',
    ],
    [
      'still running',
      cc(1, 1, { Completed: 'True', Running: 'True' }),
      'ControllerConfig has not completed: completed(true) running(true) failing(false)',
    ],
    [
      'failing',
      cc(1, 1, { Completed: 'False', Running: 'False', Failing: 'True' }),
      'ControllerConfig has not completed: completed(false) running(false) failing(true)',
    ],
    [
      'no conditions',
      cc(1, 1, {}),
      'ControllerConfig has not completed: completed(false) running(false) failing(false)',
    ],
  ])('%s', (_name, object, message) => {
    const r = controllerConfigCompleted(object);
    if (message === undefined) expect(r.ok).toBe(true);
    else expect(r.ok ? undefined : describeControllerConfigNotCompleted(r.error)).toBe(message);
  });
});
