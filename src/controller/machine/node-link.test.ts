import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import type { Machine } from '../../api/machine/v1beta1/machine.js';
import { nodeLinkPatch } from './node-link.js';

const machine: Machine = {
  metadata: { name: 'm-1', namespace: 'openshift-machine-api' },
  spec: {
    metadata: { labels: { 'node-role.kubernetes.io/infra': '' } },
    taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }],
  },
};

const node = (labels: Record<string, string>, extra: Partial<Node> = {}): Node => ({
  metadata: { name: 'n-1', labels },
  spec: {},
  ...extra,
});

describe('nodeLinkPatch', () => {
  it("adds the Machine's labels, taints and annotation that the Node lacks", () => {
    expect(nodeLinkPatch(machine, node({ 'kubernetes.io/hostname': 'n-1' }))).toEqual({
      metadata: {
        labels: { 'node-role.kubernetes.io/infra': '' },
        annotations: { 'machine.openshift.io/machine': 'openshift-machine-api/m-1' },
      },
      spec: { taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] },
    });
  });

  it('keeps taints the Node has and is nothing once all is there', () => {
    const linked = node(
      { 'node-role.kubernetes.io/infra': '' },
      {
        metadata: {
          name: 'n-1',
          labels: { 'node-role.kubernetes.io/infra': '' },
          annotations: { 'machine.openshift.io/machine': 'openshift-machine-api/m-1' },
        },
        spec: { taints: [{ key: 'dedicated', value: 'other', effect: 'NoSchedule' }] },
      },
    );
    expect(nodeLinkPatch(machine, linked)).toBeUndefined();
  });
});
