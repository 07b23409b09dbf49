/** The ControllerConfig's CA fields from the cluster's ConfigMaps (docs/reference/certificates.md). */
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import type { Image } from '../../api/config/v1/image.js';
import { certificateInputs, registryBundles } from './certificate-inputs.js';

const cm = (name: string, data: Record<string, string>, binaryData?: Record<string, string>) =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data,
    ...(binaryData === undefined ? {} : { binaryData }),
  }) as ConfigMap;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('certificateInputs', () => {
  it('nothing in the cluster: no kubelet CA override, no bundles', () => {
    expect(certificateInputs({ managed: () => undefined, config: () => undefined })).toEqual({
      cloudProviderCAData: null,
      additionalTrustBundle: null,
      imageRegistryBundleData: [],
      imageRegistryBundleUserData: [],
    });
  });

  it('reads each ConfigMap upstream reads', () => {
    const managed = new Map([
      ['kube-apiserver-client-ca', cm('kube-apiserver-client-ca', { 'ca-bundle.crt': 'KUBELET' })],
      ['kube-cloud-config', cm('kube-cloud-config', { 'ca-bundle.pem': 'CLOUD' })],
      [
        'image-registry-ca',
        cm('image-registry-ca', { 'b.example': 'PEM B', 'a.example': b64('A') }),
      ],
    ]);
    const config = new Map([
      ['user-ca-bundle', cm('user-ca-bundle', { 'ca-bundle.crt': 'USER' })],
      ['registry-cas', cm('registry-cas', { 'r..5000': 'R' }, { 'bin.example': b64('BIN') })],
    ]);
    const image = { spec: { additionalTrustedCA: { name: 'registry-cas' } } } as unknown as Image;
    const r = certificateInputs({
      managed: (n) => managed.get(n),
      config: (n) => config.get(n),
      image,
    });
    expect(r).toEqual({
      kubeAPIServerServingCAData: b64('KUBELET'),
      cloudProviderCAData: b64('CLOUD'),
      additionalTrustBundle: b64('USER'),
      imageRegistryBundleData: [
        { file: 'a.example', data: b64('A') },
        { file: 'b.example', data: b64('PEM B') },
      ],
      imageRegistryBundleUserData: [
        { file: 'r..5000', data: b64('R') },
        { file: 'bin.example', data: b64('BIN') },
      ],
    });
  });

  it('a missing ConfigMap is no bundles', () => {
    expect(registryBundles(undefined)).toEqual([]);
  });
});
