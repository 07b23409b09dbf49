import { describe, expect, it } from 'vitest';
import { builtInPool } from '../pools/built-in-pools.js';
import { updatedUserDataSecret, userDataSecret } from './user-data-secret.js';

const pool = {
  ...builtInPool('worker'),
  metadata: { ...builtInPool('worker').metadata, uid: 'p-1' },
};
const ca = new TextEncoder().encode(
  '-----BEGIN CERTIFICATE-----\nMCS\n-----END CERTIFICATE-----\n',
);

describe('userDataSecret', () => {
  it("is the pool's pointer config, base64, in openshift-machine-api, owned by the pool", () => {
    const r = userDataSecret({
      pool,
      serverUrl: 'https://api-int.example.com:22623',
      caBundle: ca,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const secret = r.value;
    expect(secret.metadata).toEqual({
      name: 'worker-user-data-managed',
      namespace: 'openshift-machine-api',
      labels: { 'machineconfiguration.openshift.io/managed-ca-bundle-derived-from-configmap': '' },
      ownerReferences: [
        {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfigPool',
          name: 'worker',
          uid: 'p-1',
        },
      ],
    });
    expect(secret.type).toBe('Opaque');
    expect(Buffer.from(secret.data?.['disableTemplating'] ?? '', 'base64').toString()).toBe(
      'true\n',
    );
    const caUrl = `data:text/plain;charset=utf-8;base64,${Buffer.from(ca).toString('base64')}`;
    expect(Buffer.from(secret.data?.['userData'] ?? '', 'base64').toString()).toBe(
      `{"ignition":{"version":"3.5.0","config":{"merge":[{"source":"https://api-int.example.com:22623/config/worker"}]},"security":{"tls":{"certificateAuthorities":[{"source":"${caUrl}"}]}}}}`,
    );
  });

  it('carries the bearer token header when one is given', () => {
    const r = userDataSecret({ pool, serverUrl: 'https://mcs:22623', caBundle: ca, token: 'abc' });
    const text = r.ok ? Buffer.from(r.value.data?.['userData'] ?? '', 'base64').toString() : '';
    expect(text).toContain('"httpHeaders":[{"name":"Authorization","value":"Bearer abc"}]');
  });

  it('reports a bad server URL with the pointer-config error', () => {
    const r = userDataSecret({ pool, serverUrl: 'https://mcs:22623/path', caBundle: ca });
    expect(r.ok).toBe(false);
  });

  it('rewrites a stale secret but leaves a current one alone', () => {
    const desired = userDataSecret({ pool, serverUrl: 'https://mcs:22623', caBundle: ca });
    if (!desired.ok) throw new Error('unexpected');
    const stored = {
      ...desired.value,
      metadata: {
        ...desired.value.metadata,
        resourceVersion: '5',
        labels: { ...desired.value.metadata.labels, extra: 'x' },
      },
    };
    expect(updatedUserDataSecret(stored, desired.value)).toBeUndefined();
    const stale = { ...stored, data: { userData: 'b2xk' } };
    const update = updatedUserDataSecret(stale, desired.value);
    expect(update?.data).toEqual(desired.value.data);
    expect(update?.metadata.resourceVersion).toBe('5');
    expect(update?.metadata.labels?.['extra']).toBe('x');
  });
});
