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
      ok: true,
      value: {
        cloudProviderCAData: null,
        additionalTrustBundle: null,
        imageRegistryBundleData: [],
        imageRegistryBundleUserData: [],
      },
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
    expect(r.ok && r.value).toEqual({
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

  it('the Proxy’s trustedCA bundle follows user-ca-bundle; a missing one fails as upstream', () => {
    const proxy = (name: string) =>
      ({ spec: { trustedCA: { name } } }) as unknown as Parameters<
        typeof certificateInputs
      >[0]['proxy'];
    const config = new Map([
      ['user-ca-bundle', cm('user-ca-bundle', { 'ca-bundle.crt': 'USER\n' })],
      ['proxy-ca', cm('proxy-ca', { 'ca-bundle.crt': 'PROXY\n' })],
      ['no-key', cm('no-key', {})],
    ]);
    const read = (name: string) =>
      certificateInputs({
        managed: () => undefined,
        config: (n) => config.get(n),
        proxy: proxy(name),
      });
    const both = read('proxy-ca');
    expect(both.ok && both.value.additionalTrustBundle).toBe(b64('USER\nPROXY\n'));
    // naming user-ca-bundle itself adds nothing
    const same = read('user-ca-bundle');
    expect(same.ok && same.value.additionalTrustBundle).toBe(b64('USER\n'));
    expect(read('absent')).toEqual({ ok: false, error: 'configmap "absent" not found' });
    expect(read('no-key')).toEqual({
      ok: false,
      error: 'ca-bundle.crt not found in openshift-config/no-key',
    });
  });

  it('a missing ConfigMap is no bundles', () => {
    expect(registryBundles(undefined)).toEqual([]);
  });
});
