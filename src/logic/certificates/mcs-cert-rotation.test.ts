import { describe, expect, it } from 'vitest';
import type { Infrastructure } from '../../api/config/v1/infrastructure.js';
import type { CertificateFacts } from './certificate-facts.js';
import {
  nextCaBundle,
  nextCheck,
  propagationMs,
  servingHosts,
  servingRenewal,
  signerRenewal,
  type RotationTiming,
} from './mcs-cert-rotation.js';

const Min = 60_000;
const timing: RotationTiming = { validityMs: 100 * Min, refreshMs: 80 * Min };
const T0 = Date.UTC(2026, 11, 1);

const cert = (over: Partial<CertificateFacts>): CertificateFacts => ({
  commonName: 'signer@1',
  issuerCommonName: 'signer@1',
  notBefore: T0,
  notAfter: T0 + 100 * Min,
  hosts: [],
  pem: 'pem-1',
  ...over,
});

describe('signerRenewal', () => {
  it.each([
    ['none yet', undefined, T0, 'there is no signer yet'],
    ['young', cert({}), T0 + 79 * Min, undefined],
    ['refresh time reached', cert({}), T0 + 80 * Min, 'the signer is past its refresh time'],
    ['expired', cert({}), T0 + 100 * Min, 'the signer expired'],
  ])('%s', (_name, signer, now, reason) => {
    const r = signerRenewal(signer, now, timing);
    expect(r.renew ? r.reason : undefined).toBe(reason);
  });
});

describe('nextCaBundle', () => {
  it('puts the signer first, keeps the other CAs still valid once each, drops expired ones', () => {
    const current = cert({ commonName: 'signer@3', pem: 'pem-3', notBefore: T0 + 90 * Min });
    const previous = cert({ commonName: 'signer@2', pem: 'pem-2', notAfter: T0 + 150 * Min });
    const expired = cert({ commonName: 'signer@1', pem: 'pem-1', notAfter: T0 + 95 * Min });
    const bundle = nextCaBundle(current, [previous, expired, current, previous], T0 + 96 * Min);
    expect(bundle.map((c) => c.commonName)).toEqual(['signer@3', 'signer@2']);
  });
});

describe('servingRenewal', () => {
  const signer = cert({});
  const serving = cert({ commonName: '10.0.0.1', hosts: ['api-int.x', '10.0.0.1'], pem: 'srv' });
  const hosts = ['10.0.0.1', 'api-int.x'];
  it.each([
    ['none yet', undefined, signer, hosts, T0, 'there is no serving certificate yet'],
    ['current', serving, signer, hosts, T0 + 10 * Min, undefined],
    ['hosts changed', serving, signer, ['api-int.y'], T0, 'the host names changed'],
    [
      'refresh time reached',
      serving,
      signer,
      hosts,
      T0 + 80 * Min,
      'the serving certificate is past its refresh time',
    ],
    ['expired', serving, signer, hosts, T0 + 100 * Min, 'the serving certificate expired'],
    [
      'a new signer, still propagating',
      serving,
      cert({ commonName: 'signer@2', notBefore: T0 + 30 * Min }),
      hosts,
      T0 + 30 * Min + propagationMs(timing) - 1,
      undefined,
    ],
    [
      'a new signer, propagated',
      serving,
      cert({ commonName: 'signer@2', notBefore: T0 + 30 * Min }),
      hosts,
      T0 + 30 * Min + propagationMs(timing),
      'a new signer is in the bundle',
    ],
  ])('%s', (_name, current, currentSigner, wanted, now, reason) => {
    const r = servingRenewal(
      { serving: current, signer: currentSigner, hosts: wanted },
      now,
      timing,
    );
    expect(r.renew ? r.reason : undefined).toBe(reason);
  });

  it('propagates for a quarter of the refresh time, an hour at most', () => {
    expect(propagationMs(timing)).toBe(20 * Min);
    expect(propagationMs({ validityMs: 1e12, refreshMs: 1e11 })).toBe(60 * Min);
  });
});

describe('nextCheck', () => {
  it('is the earliest deadline still ahead', () => {
    const signer = cert({ commonName: 'signer@2', notBefore: T0 + 30 * Min });
    const serving = cert({ notBefore: T0 });
    expect(nextCheck(signer, serving, timing, T0 + 40 * Min)).toBe(T0 + 50 * Min);
    expect(
      nextCheck(
        signer,
        cert({ commonName: 'x', issuerCommonName: 'signer@2', notBefore: T0 + 30 * Min }),
        timing,
        T0 + 40 * Min,
      ),
    ).toBe(T0 + 100 * Min); // the signer's expiry, before either refresh
  });
});

describe('servingHosts', () => {
  const infra = (status: Infrastructure['status']): Infrastructure => ({
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    metadata: { name: 'cluster' },
    spec: {},
    ...(status === undefined ? {} : { status }),
  });
  it.each([
    [
      'no Infrastructure',
      undefined,
      'no APIServerInternalURL found in cluster infrastructure resource',
    ],
    ['no URI', infra({}), 'no APIServerInternalURL found in cluster infrastructure resource'],
    [
      'not a URL',
      infra({ apiServerInternalURI: 'api-int' }),
      'the cluster infrastructure\'s apiServerInternalURI "api-int" is not a URL',
    ],
  ])('%s: %s', (_name, i, message) => {
    expect(servingHosts(i)).toEqual({ ok: false, error: message });
  });
  it.each([
    [
      'the URI host',
      infra({ apiServerInternalURI: 'https://api-int.c.example:6443' }),
      ['api-int.c.example'],
    ],
    [
      'an IPv6 host without brackets',
      infra({ apiServerInternalURI: 'https://[fd00::1]:6443' }),
      ['fd00::1'],
    ],
    [
      'and the platform IPs on bare metal',
      infra({
        apiServerInternalURI: 'https://api-int.c.example:6443',
        platformStatus: {
          type: 'BareMetal',
          baremetal: { apiServerInternalIPs: ['192.0.2.5', 'fd00::5'] },
        },
      }),
      ['api-int.c.example', '192.0.2.5', 'fd00::5'],
    ],
    [
      'not on AWS',
      infra({
        apiServerInternalURI: 'https://api-int.c.example:6443',
        platformStatus: { type: 'AWS', aws: { apiServerInternalIPs: ['192.0.2.5'] } },
      }),
      ['api-int.c.example'],
    ],
  ])('%s', (_name, i, hosts) => {
    expect(servingHosts(i)).toEqual({ ok: true, value: hosts });
  });
});
