import { describe, expect, it } from 'vitest';
import { ResourceTypeRegistry } from '../resource-types.js';
import { applyStrategicMergePatch } from './patch-strategic.js';
import { failure } from '../../../test/support/apiserver-test-store.js';

const registry = new ResourceTypeRegistry();
const pod = registry.byKind('', 'Pod')!;
const node = registry.byKind('', 'Node')!;
const ds = registry.byKind('apps', 'DaemonSet')!;

const podWith = (spec: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec,
  ...extra,
});

describe('applyStrategicMergePatch', () => {
  it.each([
    [
      'merges containers by name and keeps unnamed ones',
      {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
      },
      { spec: { containers: [{ name: 'b', image: 'b:2' }] } },
      {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:2' },
        ],
      },
    ],
    [
      'appends new elements',
      { containers: [{ name: 'a' }] },
      { spec: { containers: [{ name: 'c', image: 'c:1' }] } },
      { containers: [{ name: 'a' }, { name: 'c', image: 'c:1' }] },
    ],
    [
      'deletes an element with $patch: delete',
      { containers: [{ name: 'a' }, { name: 'b' }] },
      { spec: { containers: [{ name: 'b', $patch: 'delete' }] } },
      { containers: [{ name: 'a' }] },
    ],
    [
      'replaces the list with $patch: replace',
      { containers: [{ name: 'a' }, { name: 'b' }] },
      { spec: { containers: [{ $patch: 'replace' }, { name: 'z' }] } },
      { containers: [{ name: 'z' }] },
    ],
    [
      'merges nested env by name',
      {
        containers: [
          {
            name: 'a',
            env: [
              { name: 'X', value: '1' },
              { name: 'Y', value: '2' },
            ],
          },
        ],
      },
      { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }] }] } },
      {
        containers: [
          {
            name: 'a',
            env: [
              { name: 'X', value: '1' },
              { name: 'Y', value: '3' },
            ],
          },
        ],
      },
    ],
    [
      'replaces lists without a strategy (tolerations)',
      { containers: [], tolerations: [{ key: 'a' }, { key: 'b' }] },
      { spec: { tolerations: [{ key: 'c' }] } },
      { containers: [], tolerations: [{ key: 'c' }] },
    ],
    [
      'orders a merged list with $setElementOrder',
      { containers: [{ name: 'a' }, { name: 'b' }] },
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }],
          containers: [{ name: 'a', image: 'x' }],
        },
      },
      { containers: [{ name: 'b' }, { name: 'a', image: 'x' }] },
    ],
    [
      'deletes a field with null and drops keys outside $retainKeys',
      { containers: [], volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }] },
      {
        spec: {
          volumes: [
            {
              name: 'v',
              $retainKeys: ['name', 'hostPath'],
              emptyDir: null,
              hostPath: { path: '/y' },
            },
          ],
        },
      },
      { containers: [], volumes: [{ name: 'v', hostPath: { path: '/y' } }] },
    ],
    [
      'replaces a map with $patch: replace',
      { containers: [], nodeSelector: { a: '1', b: '2' } },
      { spec: { nodeSelector: { $patch: 'replace', c: '3' } } },
      { containers: [], nodeSelector: { c: '3' } },
    ],
  ])('%s', (_name, spec, patch, expected) => {
    expect(applyStrategicMergePatch(pod, podWith(spec), patch)).toEqual(podWith(expected));
  });

  it('merges finalizers as a set and honours $deleteFromPrimitiveList', () => {
    const target = { metadata: { name: 'p', finalizers: ['a', 'b'] } };
    expect(applyStrategicMergePatch(pod, target, { metadata: { finalizers: ['b', 'c'] } })).toEqual(
      {
        metadata: { name: 'p', finalizers: ['a', 'b', 'c'] },
      },
    );
    expect(
      applyStrategicMergePatch(pod, target, {
        metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] },
      }),
    ).toEqual({ metadata: { name: 'p', finalizers: ['b'] } });
  });

  it('merges node conditions by type', () => {
    const target = {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'DiskPressure', status: 'False' },
        ],
      },
    };
    const patch = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(applyStrategicMergePatch(node, target, patch)).toEqual({
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'DiskPressure', status: 'False' },
        ],
      },
    });
  });

  it('finds pod-template lists inside a DaemonSet', () => {
    const target = {
      spec: { template: { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b' }] } } },
    };
    const patch = { spec: { template: { spec: { containers: [{ name: 'a', image: '2' }] } } } };
    expect(applyStrategicMergePatch(ds, target, patch)).toEqual({
      spec: { template: { spec: { containers: [{ name: 'a', image: '2' }, { name: 'b' }] } } },
    });
  });

  it('refuses a body that is not an object', async () => {
    const status = await failure(
      Promise.resolve().then(() => applyStrategicMergePatch(pod, {}, [1])),
    );
    expect(status.message).toBe(
      'json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    expect(status.code).toBe(400);
  });
});
