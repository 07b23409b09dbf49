/**
 * Node builders named after upstream's test fixtures (docs/reference/upstream-tests.md §11.2):
 * `newNodeWithReady`
 * sets both config annotations, `state=Done` when current == desired else `Working`, and one Ready
 * condition; `newNode` has no conditions (so it is ready).
 */
import type { Node } from '../../src/api/core/v1/node.js';

const A = 'machineconfiguration.openshift.io/';

export function newNode(
  name: string,
  current: string,
  desired: string,
  extra: {
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    created?: string;
  } = {},
): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      ...(extra.created === undefined ? {} : { creationTimestamp: extra.created }),
      labels: extra.labels ?? {},
      annotations: {
        [`${A}currentConfig`]: current,
        [`${A}desiredConfig`]: desired,
        [`${A}state`]: current === desired ? 'Done' : 'Working',
        ...extra.annotations,
      },
    },
    spec: {},
  };
}

export function newNodeWithReady(
  name: string,
  current: string,
  desired: string,
  ready: 'True' | 'False' | 'Unknown',
  extra: Parameters<typeof newNode>[3] = {},
): Node {
  const node = newNode(name, current, desired, extra);
  return { ...node, status: { conditions: [{ type: 'Ready', status: ready }] } };
}

export function withConditions(
  node: Node,
  conditions: Record<string, string>,
  unschedulable?: boolean,
): Node {
  return {
    ...node,
    spec: { ...node.spec, ...(unschedulable === undefined ? {} : { unschedulable }) },
    status: { conditions: Object.entries(conditions).map(([type, status]) => ({ type, status })) },
  };
}

export function withState(node: Node, state: string, reason?: string): Node {
  return {
    ...node,
    metadata: {
      ...node.metadata,
      annotations: {
        ...node.metadata.annotations,
        [`${A}state`]: state,
        ...(reason === undefined ? {} : { [`${A}reason`]: reason }),
      },
    },
  };
}
