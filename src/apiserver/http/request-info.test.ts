import { describe, expect, it } from 'vitest';
import { exactNameOf, requestInfo } from './request-info.js';

function info(method: string, url: string): Record<string, unknown> {
  const u = new URL(url, 'http://x');
  const r = requestInfo(method, u.pathname, u.searchParams);
  if (!r.isResourceRequest) return { nonResource: r.path, verb: r.verb };
  return {
    verb: r.verb,
    group: r.group,
    version: r.version,
    namespace: r.namespace,
    resource: r.resource,
    subresource: r.subresource,
    name: r.name,
    pathName: r.pathName,
  };
}

const MCO = 'machineconfiguration.openshift.io';
const res = (verb: string, o: Partial<Record<string, string>>) => ({
  verb,
  group: '',
  version: 'v1',
  namespace: '',
  resource: '',
  subresource: '',
  name: '',
  pathName: '',
  ...o,
});

describe('requestInfo', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['GET', '/version', { nonResource: '/version', verb: 'get' }],
    ['GET', '/api', { nonResource: '/api', verb: 'get' }],
    ['GET', '/api/v1', { nonResource: '/api/v1', verb: 'get' }],
    ['GET', `/apis/${MCO}/v1`, { nonResource: `/apis/${MCO}/v1`, verb: 'get' }],
    ['POST', '/openapi/v3', { nonResource: '/openapi/v3', verb: 'post' }],
    ['GET', '/api/v1/nodes', res('list', { resource: 'nodes' })],
    ['GET', '/api/v1/nodes?watch=true', res('watch', { resource: 'nodes' })],
    ['GET', '/api/v1/nodes?watch=1', res('watch', { resource: 'nodes' })],
    ['GET', '/api/v1/nodes?watch=false', res('list', { resource: 'nodes' })],
    ['GET', '/api/v1/nodes/n1', res('get', { resource: 'nodes', name: 'n1', pathName: 'n1' })],
    ['GET', '/api/v1/pods', res('list', { resource: 'pods' })],
    [
      'GET',
      '/api/v1/namespaces/default/pods',
      res('list', { namespace: 'default', resource: 'pods' }),
    ],
    [
      'POST',
      '/api/v1/namespaces/default/pods/web/eviction',
      res('create', {
        namespace: 'default',
        resource: 'pods',
        name: 'web',
        pathName: 'web',
        subresource: 'eviction',
      }),
    ],
    ['GET', '/api/v1/namespaces', res('list', { resource: 'namespaces' })],
    ['POST', '/api/v1/namespaces', res('create', { resource: 'namespaces' })],
    [
      'GET',
      '/api/v1/namespaces/foo',
      res('get', { namespace: 'foo', resource: 'namespaces', name: 'foo', pathName: 'foo' }),
    ],
    [
      'PUT',
      '/api/v1/namespaces/foo/status',
      res('update', {
        namespace: 'foo',
        resource: 'namespaces',
        name: 'foo',
        pathName: 'foo',
        subresource: 'status',
      }),
    ],
    [
      'DELETE',
      '/api/v1/namespaces/foo',
      res('delete', { namespace: 'foo', resource: 'namespaces', name: 'foo', pathName: 'foo' }),
    ],
    [
      'DELETE',
      '/api/v1/namespaces/d/pods?labelSelector=a',
      res('deletecollection', { namespace: 'd', resource: 'pods' }),
    ],
    [
      'PATCH',
      `/apis/${MCO}/v1/machineconfigpools/worker/status`,
      res('patch', {
        group: MCO,
        resource: 'machineconfigpools',
        name: 'worker',
        pathName: 'worker',
        subresource: 'status',
      }),
    ],
    [
      'GET',
      `/apis/${MCO}/v1/machineconfigpools?fieldSelector=metadata.name%3Dworker&watch=true`,
      res('watch', { group: MCO, resource: 'machineconfigpools', name: 'worker' }),
    ],
    [
      'GET',
      `/apis/${MCO}/v1/machineconfigpools?fieldSelector=metadata.name%3D%3Dworker&limit=500`,
      res('list', { group: MCO, resource: 'machineconfigpools', name: 'worker' }),
    ],
    ['GET', '/api/v1/watch/namespaces/d/pods', res('watch', { namespace: 'd', resource: 'pods' })],
    [
      'GET',
      '/api/v1/watch/namespaces/d/pods/web',
      res('watch', { namespace: 'd', resource: 'pods', name: 'web', pathName: 'web' }),
    ],
    ['GET', '/api/v1/watch/nodes', res('watch', { resource: 'nodes' })],
    ['OPTIONS', '/api/v1/nodes', res('', { resource: 'nodes' })],
    ['GET', '/api/v1/nodes/a%3Ab', res('get', { resource: 'nodes', name: 'a:b', pathName: 'a:b' })],
    [
      'GET',
      '/api/v1/nodes/a%ZZ',
      res('get', { resource: 'nodes', name: 'a%ZZ', pathName: 'a%ZZ' }),
    ],
  ])('%s %s', (method, url, expected) => {
    expect(info(method, url)).toEqual(expected);
  });
});

describe('exactNameOf', () => {
  it.each<[string | null, string | undefined]>([
    ['metadata.name=worker', 'worker'],
    ['metadata.name==worker', 'worker'],
    ['spec.nodeName=n1,metadata.name=p', 'p'],
    ['metadata.name!=worker', undefined],
    ['metadata.namespace=x', undefined],
    [null, undefined],
  ])('%s → %s', (sel, name) => {
    expect(exactNameOf(sel)).toBe(name);
  });
});
