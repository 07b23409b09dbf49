import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import { describeOsImageUrlError, readOsImageUrls } from './os-image-urls.js';

const full = {
  baseOSContainerImage: 'quay.io/os@sha256:aa',
  baseOSExtensionsContainerImage: 'quay.io/ext@sha256:bb',
  osImageURL: '',
  releaseVersion: '4.17.0',
};

function cm(data: Record<string, string>): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: 'openshift-machine-config-operator' },
    data,
  };
}

function without(key: keyof typeof full): Record<string, string> {
  return Object.fromEntries(Object.entries(full).filter(([k]) => k !== key));
}

describe('readOsImageUrls', () => {
  it('reads the four keys of a ConfigMap for this release', () => {
    // GIVEN the ConfigMap of release 4.17.0 WHEN the 4.17.0 operator reads it
    const r = readOsImageUrls(cm(full), '4.17.0');
    // THEN it gets the images
    expect(r).toEqual({ ok: true, value: full });
  });

  it.each([
    ['no ConfigMap', undefined, 'configmap "machine-config-osimageurl" not found'],
    [
      'no baseOSContainerImage',
      cm(without('baseOSContainerImage')),
      'expected missing data key "baseOSContainerImage" to be present in ConfigMap machine-config-osimageurl',
    ],
    [
      'no baseOSExtensionsContainerImage',
      cm(without('baseOSExtensionsContainerImage')),
      'expected missing data key "baseOSExtensionsContainerImage" to be present in ConfigMap machine-config-osimageurl',
    ],
    [
      'no osImageURL',
      cm(without('osImageURL')),
      'expected missing data key "osImageURL" to be present in ConfigMap machine-config-osimageurl',
    ],
    [
      'no releaseVersion',
      cm(without('releaseVersion')),
      'expected missing data key "releaseVersion" to be present in ConfigMap machine-config-osimageurl',
    ],
    [
      'another release',
      cm({ ...full, releaseVersion: '4.16.3' }),
      'refusing to read osImageURL version "4.16.3", operator version "4.17.0"',
    ],
  ])('%s: %s', (_name, input, message) => {
    const r = readOsImageUrls(input, '4.17.0');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(describeOsImageUrlError(r.error)).toBe(message);
  });
});
