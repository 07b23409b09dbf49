import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { makeTestCa } from '../../../test/support/certificates.js';
import { silentLogger } from '../../ports/logger.js';
import { ManualClock } from '../../../test/support/apiserver-test-store.js';
import { TokenAuthenticator } from './token-authenticator.js';
import { UnionAuthenticator, X509Authenticator } from './x509-authenticator.js';

const der = (pem: string): Uint8Array => new Uint8Array(x509.PemConverter.decodeFirst(pem));
const request = (authorization?: string) =>
  new Request(
    'https://127.0.0.1/api',
    authorization === undefined ? {} : { headers: { authorization } },
  );

describe('X509Authenticator', () => {
  it('takes the user from CN and the groups from O, for certificates of its CA only', async () => {
    const ca = await makeTestCa();
    const other = await makeTestCa('other-ca');
    const clock = new ManualClock(Date.now());
    const authn = new X509Authenticator({ caPem: ca.certPem, clock, log: silentLogger });
    const node = await ca.issueClient({ cn: 'system:node:w1', o: ['system:nodes'] });
    expect(await authn.authenticate(request(), { peerCertificate: der(node.certPem) })).toEqual({
      name: 'system:node:w1',
      groups: ['system:nodes', 'system:authenticated'],
    });
    const forged = await other.issueClient({ cn: 'system:node:w1', o: ['system:nodes'] });
    expect(
      await authn.authenticate(request(), { peerCertificate: der(forged.certPem) }),
    ).toBeUndefined();
    expect(await authn.authenticate(request(), {})).toBeUndefined();
    expect(
      await authn.authenticate(request(), { peerCertificate: new Uint8Array([1, 2, 3]) }),
    ).toBeUndefined();
  });

  it('refuses certificates outside their validity, checked on every request', async () => {
    const ca = await makeTestCa();
    const now = Date.now();
    const clock = new ManualClock(now);
    const authn = new X509Authenticator({ caPem: ca.certPem, clock, log: silentLogger });
    const expired = await ca.issueClient({
      cn: 'system:node:w1',
      o: ['system:nodes'],
      notBefore: new Date(now - 7_200_000),
      notAfter: new Date(now - 3_600_000),
    });
    expect(
      await authn.authenticate(request(), { peerCertificate: der(expired.certPem) }),
    ).toBeUndefined();
    const shortLived = await ca.issueClient({
      cn: 'system:node:w2',
      o: ['system:nodes'],
      notAfter: new Date(now + 60_000),
    });
    const peer = { peerCertificate: der(shortLived.certPem) };
    expect((await authn.authenticate(request(), peer))?.name).toBe('system:node:w2');
    clock.advance(120_000);
    expect(await authn.authenticate(request(), peer)).toBeUndefined();
  });

  it('is tried before tokens; a bad certificate still lets a token speak', async () => {
    const ca = await makeTestCa();
    const other = await makeTestCa('other-ca');
    const union = new UnionAuthenticator([
      new X509Authenticator({
        caPem: ca.certPem,
        clock: new ManualClock(Date.now()),
        log: silentLogger,
      }),
      new TokenAuthenticator({
        staticTokens: [
          { token: 't', uid: 'u', user: { name: 'admin', groups: ['system:masters'] } },
        ],
      }),
    ]);
    const forged = await other.issueClient({ cn: 'system:admin', o: ['system:masters'] });
    const peer = { peerCertificate: der(forged.certPem) };
    expect((await union.authenticate(request('Bearer t'), peer))?.name).toBe('admin');
    expect(await union.authenticate(request(), peer)).toBeUndefined();
  });
});
