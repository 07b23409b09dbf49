import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import { newNode, newNodeWithReady, withConditions } from '../../../test/support/nodes.js';
import { nodeChangeMatters } from './node-events.js';
import { isDesiredEqualToPool, nodeMetadataPatch } from './node-patches.js';

const base = newNodeWithReady('n', 'a', 'a', 'True');
const A = 'machineconfiguration.openshift.io/';

function withAnnotation(node: Node, key: string, value: string): Node {
  return {
    ...node,
    metadata: { ...node.metadata, annotations: { ...node.metadata.annotations, [key]: value } },
  };
}

describe('nodeChangeMatters (upstream updateNode)', () => {
  it.each([
    [
      'nothing relevant (a heartbeat annotation)',
      withAnnotation(base, 'other/heartbeat', '1'),
      false,
    ],
    ['readiness', withConditions(base, { Ready: 'False' }), true],
    ['cordoned', { ...base, spec: { unschedulable: true } }, true],
    ['desiredConfig', withAnnotation(base, `${A}desiredConfig`, 'b'), true],
    ['currentConfig', withAnnotation(base, `${A}currentConfig`, 'b'), true],
    ['state', withAnnotation(base, `${A}state`, 'Working'), true],
    ['reason', withAnnotation(base, `${A}reason`, 'x'), true],
    ['desiredImage', withAnnotation(base, `${A}desiredImage`, 'img'), true],
    ['labels', { ...base, metadata: { ...base.metadata, labels: { x: '' } } }, true],
    ['taints', { ...base, spec: { taints: [{ key: 'k', effect: 'NoSchedule' as const }] } }, true],
  ])('%s → %s', (_what, updated, expected) => {
    expect(nodeChangeMatters(base, updated)).toBe(expected);
  });
});

describe('nodeMetadataPatch', () => {
  it.each([
    [
      'already annotated worker',
      withAnnotation(newNode('w', 'a', 'a'), `${A}controlPlaneTopology`, 'HighlyAvailable'),
      undefined,
    ],
    [
      'worker without topology',
      newNode('w', 'a', 'a'),
      { metadata: { annotations: { [`${A}controlPlaneTopology`]: 'HighlyAvailable' } } },
    ],
    [
      'master without control-plane label',
      withAnnotation(
        newNode('m', 'a', 'a', { labels: { 'node-role.kubernetes.io/master': '' } }),
        `${A}controlPlaneTopology`,
        'HighlyAvailable',
      ),
      { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } },
    ],
  ])('%s', (_what, node, patch) => {
    expect(nodeMetadataPatch(node, 'HighlyAvailable')).toEqual(patch);
  });
});

describe('isDesiredEqualToPool', () => {
  it.each([
    [newNode('n', 'a', 'b'), 'b', true],
    [newNode('n', 'a', 'a'), 'b', false],
    [withAnnotation(newNode('n', 'a', 'b'), `${A}desiredImage`, 'img'), 'b', false],
  ])('%# → %s', (node, target, expected) => {
    expect(isDesiredEqualToPool(node, target)).toBe(expected);
  });
});
