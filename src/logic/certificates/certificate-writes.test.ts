/**
 * The certificate writer's decisions (upstream certificate_writer.go, docs/reference/certificates.md):
 * when it acts, which files it writes in which order, the registry CA directories, the node
 * annotations it records, and bundle names that try to leave /etc/docker/certs.d.
 */
import { describe, expect, it } from 'vitest';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import {
  certificatesOutOfDate,
  describeCertificateWritesError,
  planCertificateWrites,
  registryDirName,
} from './certificate-writes.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (d: Uint8Array) => Buffer.from(d).toString('utf8');

function cc(spec: Partial<ControllerConfig['spec']>, rv = '42', rotate?: string): ControllerConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: {
      name: 'machine-config-controller',
      resourceVersion: rv,
      ...(rotate === undefined ? {} : { annotations: { [Annotation.serviceCaRotate]: rotate } }),
    },
    spec: { kubeAPIServerServingCAData: b64('KUBELET CA'), ...spec } as ControllerConfig['spec'],
  };
}

describe('when the writer acts', () => {
  it('on a new resourceVersion, or a rotation not yet observed', () => {
    const synced = { [Annotation.lastSyncedControllerConfigResourceVersion]: '42' };
    expect(certificatesOutOfDate(cc({}), {})).toBe(true);
    expect(certificatesOutOfDate(cc({}), synced)).toBe(false);
    expect(certificatesOutOfDate(cc({}, '43'), synced)).toBe(true);
    expect(certificatesOutOfDate(cc({}, '42', 'true'), synced)).toBe(true);
    expect(
      certificatesOutOfDate(cc({}, '42', 'true'), {
        ...synced,
        [Annotation.lastObservedServerCAAnnotation]: 'true',
      }),
    ).toBe(false);
    expect(certificatesOutOfDate(cc({}, '42', 'false'), synced)).toBe(false);
  });
});

describe('what it writes', () => {
  it('pull secret first, then kubelet CA, cloud CA (even empty), then registry CAs, user bundles winning', () => {
    const r = planCertificateWrites(
      cc(
        {
          internalRegistryPullSecret: b64('{"auths":{}}'),
          cloudProviderCAData: null,
          imageRegistryBundleData: [
            { file: 'registry.example..5000', data: b64('DATA CA\n') },
            { file: 'mirror.example', data: b64('MIRROR CA') },
          ],
          imageRegistryBundleUserData: [{ file: 'registry.example..5000', data: b64('USER CA') }],
        },
        '42',
        'true',
      ),
      {},
    );
    if (!r.ok) throw new Error(describeCertificateWritesError(r.error));
    expect(r.value.files.map((f) => [f.path, text(f.data)])).toEqual([
      ['/etc/mco/internal-registry-pull-secret.json', '{"auths":{}}\n'],
      ['/etc/kubernetes/kubelet-ca.crt', 'KUBELET CA\n'],
      ['/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem', '\n'],
      ['/etc/docker/certs.d/registry.example:5000/ca.crt', 'USER CA\n'],
      ['/etc/docker/certs.d/mirror.example/ca.crt', 'MIRROR CA\n'],
    ]);
    expect(r.value.registryDirs).toEqual(['registry.example:5000', 'mirror.example']);
    expect(r.value.annotations).toEqual({
      [Annotation.lastSyncedControllerConfigResourceVersion]: '42',
      [Annotation.lastObservedServerCAAnnotation]: 'true',
    });
  });

  it.each(['../../etc', 'a/b', '.', '', 'x\0y', '../x'])(
    'refuses the bundle name %j and writes nothing',
    (file) => {
      const r = planCertificateWrites(
        cc({ imageRegistryBundleData: [{ file, data: b64('x') }] }),
        {},
      );
      expect(r.ok).toBe(false);
      if (!r.ok)
        expect(describeCertificateWritesError(r.error)).toContain('must be a registry host');
    },
  );

  it('keeps ports and plain hosts as directory names', () => {
    expect(registryDirName('quay.io')).toBe('quay.io');
    expect(registryDirName('127.0.0.1..5000')).toBe('127.0.0.1:5000');
  });

  it('refuses data that is not base64', () => {
    const r = planCertificateWrites(cc({ kubeAPIServerServingCAData: '-----BEGIN' }), {});
    expect(r.ok ? '' : describeCertificateWritesError(r.error)).toBe(
      'ControllerConfig kubeAPIServerServingCAData is not base64',
    );
  });
});
