import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../ports/logger.js';
import type { KubeObject } from '../resource-store.js';
import {
  generateNodeToken,
  formatNodeToken,
  nodeTokenSecret,
  parseNodeToken,
} from './node-token.js';
import { fixedStore, resourceType } from './testing.js';
import { bearerToken, TokenAuthenticator } from './token-authenticator.js';

const secrets = resourceType('', 'secrets', 'Secret', true);
const nodeToken = { id: 'abc123', secret: '0123456789abcdef' };
const secret = nodeTokenSecret('worker-0', nodeToken);

function authenticator(objects: KubeObject[] = [secret]) {
  const byKey = new Map(
    objects.map((o) => [`secrets/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o]),
  );
  return new TokenAuthenticator({
    staticTokens: [
      {
        token: 'admin-token',
        uid: 'u1',
        user: { name: 'system:admin', groups: ['system:masters'] },
      },
      { token: 'mcs-token', uid: 'u2', user: { name: 'mcs', groups: ['system:authenticated'] } },
    ],
    store: fixedStore(byKey),
    secrets,
    log: silentLogger,
  });
}

const request = (authorization?: string): Request =>
  new Request(
    'https://127.0.0.1/api',
    authorization === undefined ? {} : { headers: { authorization } },
  );

describe('bearerToken', () => {
  it.each([
    [null, undefined],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc extra', 'abc'],
    ['Basic abc', undefined],
    ['Bearer ', undefined],
    ['Bearer', undefined],
  ])('%j → %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});

describe('TokenAuthenticator', () => {
  it.each([
    [
      'Bearer admin-token',
      { name: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
    ],
    ['Bearer mcs-token', { name: 'mcs', groups: ['system:authenticated'] }],
    [
      'Bearer abc123.0123456789abcdef',
      { name: 'system:node:worker-0', groups: ['system:nodes', 'system:authenticated'] },
    ],
    [undefined, undefined],
    ['Bearer wrong', undefined],
    ['Bearer admin-token2', undefined],
    ['Bearer abc123.0123456789abcdee', undefined],
    ['Bearer zzz999.0123456789abcdef', undefined],
  ])('%j authenticates as %j', async (header, user) => {
    expect(await authenticator().authenticate(request(header))).toEqual(user);
  });

  it('sees a node token as soon as its Secret exists, and not after it is being deleted', async () => {
    const minted = generateNodeToken();
    const bearer = `Bearer ${formatNodeToken(minted)}`;
    expect(await authenticator().authenticate(request(bearer))).toBeUndefined();
    const created = nodeTokenSecret('worker-9', minted);
    expect(await authenticator([secret, created]).authenticate(request(bearer))).toEqual({
      name: 'system:node:worker-9',
      groups: ['system:nodes', 'system:authenticated'],
    });
    const deleting = {
      ...created,
      metadata: { ...created.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    expect(await authenticator([deleting]).authenticate(request(bearer))).toBeUndefined();
  });

  it('ignores Secrets of another type or whose name does not match the token id', async () => {
    const other = { ...secret, type: 'Opaque' };
    expect(
      await authenticator([other]).authenticate(request('Bearer abc123.0123456789abcdef')),
    ).toBeUndefined();
  });
});

describe('node tokens', () => {
  it('are bootstrap-token shaped and parse back', () => {
    const token = generateNodeToken();
    const text = formatNodeToken(token);
    expect(text).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    expect(parseNodeToken(text)).toEqual(token);
    expect(parseNodeToken(`${text}x`)).toBeUndefined();
  });

  it('live in a kube-system Secret that names the node', () => {
    expect(secret).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'node-token-abc123', namespace: 'kube-system' },
      type: 'machineconfiguration.openshift.io/node-token',
      data: {
        'token-id': 'YWJjMTIz',
        'token-secret': 'MDEyMzQ1Njc4OWFiY2RlZg==',
        'node-name': 'd29ya2VyLTA=',
      },
    });
  });
});
