import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../api/config/v1/cluster-version.js';
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import { operatorImagesData, osImageUrlData } from './release-config-maps.js';
import { releaseVersions } from './release-versions.js';

const configured = { operator: '0.1.0', operatorImage: 'quay.io/mco:configured' };

function cv(desired: string | undefined, history: readonly string[] = []): ClusterVersion {
  return {
    metadata: { name: 'version' },
    spec: { clusterID: 'c' },
    status: {
      ...(desired === undefined ? {} : { desired: { version: desired, image: `r:${desired}` } }),
      history: history.map((version) => ({
        state: 'Partial',
        version,
        image: `r:${version}`,
        startedTime: '2026-01-01T00:00:00Z',
        verified: false,
      })),
    },
  } as unknown as ClusterVersion;
}

const release = (version: string) => ({
  version,
  osImage: `os:${version}`,
  osExtensionsImage: '',
  operatorImage: `quay.io/mco:${version}`,
});
const osUrls = (version: string): ConfigMap => ({
  metadata: { name: 'machine-config-osimageurl' },
  data: osImageUrlData(release(version)),
});
const images = (version: string): ConfigMap => ({
  metadata: { name: 'machine-config-operator-images' },
  data: operatorImagesData(release(version)),
});

describe('releaseVersions', () => {
  it('keeps the configured versions before any release is accepted', () => {
    expect(releaseVersions(configured, undefined, osUrls('0.1.0'), undefined)).toBe(configured);
    expect(releaseVersions(configured, cv(undefined), osUrls('0.1.0'), undefined)).toBe(configured);
  });

  it('stays on the configured release until the accepted one’s ConfigMap lands', () => {
    const accepted = cv('4.99.2', ['4.99.2']);
    expect(releaseVersions(configured, accepted, osUrls('0.1.0'), images('0.1.0'))).toBe(
      configured,
    );
    expect(releaseVersions(configured, accepted, osUrls('4.99.2'), images('0.1.0'))).toEqual({
      operator: '4.99.2',
      operatorImage: 'quay.io/mco:configured',
    });
    expect(releaseVersions(configured, accepted, osUrls('4.99.2'), images('4.99.2'))).toEqual({
      operator: '4.99.2',
      operatorImage: 'quay.io/mco:4.99.2',
    });
  });

  it('stays on a release from the history (a failed one being replaced) until the new data lands', () => {
    const healing = cv('4.17.0', ['4.17.0', '4.99.1']);
    expect(releaseVersions(configured, healing, osUrls('4.99.1'), images('4.99.1'))).toEqual({
      operator: '4.99.1',
      operatorImage: 'quay.io/mco:4.99.1',
    });
  });

  it('a ConfigMap naming a release nobody accepted, or none at all, does not steer it', () => {
    const accepted = cv('4.99.2', ['4.99.2']);
    expect(releaseVersions(configured, accepted, osUrls('6.6.6'), undefined).operator).toBe(
      '4.99.2',
    );
    expect(releaseVersions(configured, accepted, undefined, undefined).operator).toBe('4.99.2');
  });
});
