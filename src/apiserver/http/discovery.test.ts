import { describe, expect, it } from 'vitest';
import { servedResourceTypes } from '../resource-types.js';
import {
  aggregatedDiscovery,
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from './discovery.js';

const types = servedResourceTypes();
const MCO = 'machineconfiguration.openshift.io';
const all8 = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('legacy discovery', () => {
  it('answers /api with the server address', () => {
    expect(apiVersions('127.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
    });
  });

  it('lists every non-core group in /apis', () => {
    const list = apiGroupList(types) as { kind: string; groups: { name: string }[] };
    expect(list.kind).toBe('APIGroupList');
    expect(list.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining(['coordination.k8s.io', 'policy', 'apps', MCO]),
    );
    expect(list.groups.find((g) => g.name === MCO)).toEqual({
      name: MCO,
      versions: [{ groupVersion: `${MCO}/v1`, version: 'v1' }],
      preferredVersion: { groupVersion: `${MCO}/v1`, version: 'v1' },
    });
  });

  it('serves /apis/<group> and nothing for unknown groups', () => {
    expect(apiGroupDocument(types, 'policy')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'policy',
      versions: [{ groupVersion: 'policy/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'policy/v1', version: 'v1' },
    });
    expect(apiGroupDocument(types, 'nosuch.io')).toBeUndefined();
  });

  it('advertises pods/eviction as policy/v1 Eviction in /api/v1', () => {
    const list = apiResourceList(types, '', 'v1') as {
      groupVersion: string;
      resources: { name: string }[];
    };
    expect(list.groupVersion).toBe('v1');
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    expect(byName.get('pods')).toEqual({
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: all8,
      shortNames: ['po'],
      categories: ['all'],
    });
    expect(byName.get('pods/eviction')).toEqual({
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
    expect(byName.get('namespaces')).toEqual({
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
    });
    const names = list.resources.map((r) => r.name);
    expect(names).toEqual([...names].sort());
  });

  it('lists MCO kinds with their status subresources', () => {
    const list = apiResourceList(types, MCO, 'v1') as {
      groupVersion: string;
      resources: unknown[];
    };
    expect(list.groupVersion).toBe(`${MCO}/v1`);
    expect(list.resources).toContainEqual({
      name: 'machineconfigpools',
      singularName: 'machineconfigpool',
      namespaced: false,
      kind: 'MachineConfigPool',
      verbs: all8,
      shortNames: ['mcp'],
    });
    expect(list.resources).toContainEqual({
      name: 'machineconfigpools/status',
      singularName: '',
      namespaced: false,
      kind: 'MachineConfigPool',
      verbs: ['get', 'patch', 'update'],
    });
    expect(list.resources).toContainEqual({
      name: 'machineconfigs',
      singularName: 'machineconfig',
      namespaced: false,
      kind: 'MachineConfig',
      verbs: all8,
      shortNames: ['mc'],
    });
  });
});

describe('aggregated discovery', () => {
  it('puts only the core group under /api', () => {
    const doc = aggregatedDiscovery(types, { core: true, version: 'v2' }) as {
      apiVersion: string;
      items: {
        metadata: { name: string };
        versions: { version: string; resources: { resource: string }[] }[];
      }[];
    };
    expect(doc.apiVersion).toBe('apidiscovery.k8s.io/v2');
    expect(doc.items.map((i) => i.metadata.name)).toEqual(['']);
    const pods = doc.items[0]?.versions[0]?.resources.find((r) => r.resource === 'pods');
    expect(pods).toEqual({
      resource: 'pods',
      responseKind: { group: '', version: 'v1', kind: 'Pod' },
      scope: 'Namespaced',
      singularResource: 'pod',
      verbs: all8,
      shortNames: ['po'],
      categories: ['all'],
      subresources: [
        {
          subresource: 'status',
          responseKind: { group: '', version: 'v1', kind: 'Pod' },
          verbs: ['get', 'patch', 'update'],
        },
        {
          subresource: 'eviction',
          responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
          verbs: ['create'],
        },
        {
          subresource: 'log',
          responseKind: { group: '', version: 'v1', kind: 'Pod' },
          verbs: ['get'],
        },
      ],
    });
  });

  it('puts every other group under /apis, v2beta1 with the same shape', () => {
    const doc = aggregatedDiscovery(types, { core: false, version: 'v2beta1' }) as {
      kind: string;
      apiVersion: string;
      metadata: object;
      items: {
        metadata: { name: string };
        versions: { version: string; freshness: string; resources: unknown[] }[];
      }[];
    };
    expect(doc.kind).toBe('APIGroupDiscoveryList');
    expect(doc.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    expect(doc.items.map((i) => i.metadata.name)).not.toContain('');
    const mco = doc.items.find((i) => i.metadata.name === MCO);
    expect(mco?.versions[0]?.freshness).toBe('Current');
    expect(mco?.versions[0]?.resources).toContainEqual({
      resource: 'machineconfigpools',
      responseKind: { group: MCO, version: 'v1', kind: 'MachineConfigPool' },
      scope: 'Cluster',
      singularResource: 'machineconfigpool',
      verbs: all8,
      shortNames: ['mcp'],
      subresources: [
        {
          subresource: 'status',
          responseKind: { group: MCO, version: 'v1', kind: 'MachineConfigPool' },
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
  });
});
