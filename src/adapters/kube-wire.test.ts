/**
 * The wire helpers both ResourceClients share: resource paths, query strings in the order given,
 * and apimachinery's NewGenericServerResponse for answers with no Status body.
 */
import { describe, expect, it } from 'vitest';
import { Resources } from '../api/resource-refs.js';
import { genericServerResponse, queryString, resourcePath, statusErrorOf } from './kube-wire.js';

describe('resourcePath', () => {
  it.each([
    { ref: Resources.node, ns: undefined, name: 'n1', path: '/api/v1/nodes/n1' },
    { ref: Resources.pod, ns: 'default', name: 'p', path: '/api/v1/namespaces/default/pods/p' },
    { ref: Resources.pod, ns: undefined, name: undefined, path: '/api/v1/pods' },
    {
      ref: Resources.machineConfigPool,
      ns: undefined,
      name: 'worker',
      path: '/apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker',
    },
    {
      ref: Resources.lease,
      ns: 'openshift-machine-config-operator',
      name: undefined,
      path: '/apis/coordination.k8s.io/v1/namespaces/openshift-machine-config-operator/leases',
    },
    // A namespace on a cluster-scoped kind is ignored.
    { ref: Resources.node, ns: 'x', name: 'a b', path: '/api/v1/nodes/a%20b' },
  ])('$path', ({ ref, ns, name, path }) => {
    expect(resourcePath(ref, ns, name)).toBe(path);
  });
});

describe('genericServerResponse', () => {
  it.each([
    {
      code: 404,
      verb: 'GET',
      message: 'the server could not find the requested resource (get nodes n1)',
      reason: 'NotFound',
    },
    {
      code: 401,
      verb: 'GET',
      message: 'the server has asked for the client to provide credentials (get nodes n1)',
      reason: 'Unauthorized',
    },
    {
      code: 409,
      verb: 'POST',
      message: 'the server reported a conflict (post nodes n1)',
      reason: 'AlreadyExists',
    },
    {
      code: 409,
      verb: 'PUT',
      message: 'the server reported a conflict (put nodes n1)',
      reason: 'Conflict',
    },
    { code: 403, verb: 'GET', message: 'no way (get nodes n1)', reason: 'Forbidden' },
    {
      code: 502,
      verb: 'GET',
      message:
        'an error on the server ("no way") has prevented the request from succeeding (get nodes n1)',
      reason: 'InternalError',
    },
    {
      code: 418,
      verb: 'GET',
      message:
        'the server responded with the status code 418 but did not return more information (get nodes n1)',
      reason: '',
    },
  ])('$code $verb → $reason', ({ code, verb, message, reason }) => {
    const e = genericServerResponse({
      code,
      verb,
      ref: Resources.node,
      name: 'n1',
      serverMessage: 'no way',
    });
    expect({ message: e.message, reason: e.reason, code: e.code, details: e.details }).toEqual({
      message,
      reason,
      code,
      details: { name: 'n1', kind: 'nodes' },
    });
  });
});

describe('queryString', () => {
  it('keeps the given order, drops undefined values and escapes', () => {
    expect(queryString({ b: 'x=y', a: undefined, c: 10, d: false })).toBe('?b=x%3Dy&c=10&d=false');
    expect(queryString({ a: undefined })).toBe('');
  });
});

describe('statusErrorOf', () => {
  it('rebuilds a Status body and keeps the HTTP code when the body has none', () => {
    const e = statusErrorOf({
      code: 409,
      body: JSON.stringify({ kind: 'Status', reason: 'Conflict', message: 'stale' }),
      verb: 'PUT',
      ref: Resources.node,
      name: 'n1',
    });
    expect({ reason: e.reason, code: e.code, message: e.message }).toEqual({
      reason: 'Conflict',
      code: 409,
      message: 'stale',
    });
  });

  it('treats JSON that is not a Status as a generic answer', () => {
    const e = statusErrorOf({
      code: 404,
      body: '{"kind":"Node"}',
      verb: 'GET',
      ref: Resources.node,
      name: 'n1',
    });
    expect(e.reason).toBe('NotFound');
    expect(e.message).toBe('the server could not find the requested resource (get nodes n1)');
  });
});
