/**
 * `gates.podSelector`: the pods matching the selector on each updated node must be Ready. The
 * probe lists them; within a node's soak, pods still starting are a wait, not a revert.
 */
import { LabelSelectorSchema, type LabelSelector } from '../../../api/meta/v1/label-selector.js';
import {
  labelSelectorFault,
  labelSelectorToString,
} from '../../../api/meta/v1/label-selector-matching.js';
import type { NodeGateKind } from './gate-kind.js';

/** Pods on the node matching the selector that are not Ready (`namespace/name`). */
export type PodsNotReady = readonly string[];

export const podSelectorGate: NodeGateKind<LabelSelector, PodsNotReady> = {
  scope: 'node',
  schema: LabelSelectorSchema,
  countsForRevert: false,
  describe: (s) => `pods matching ${labelSelectorToString(s) || '(all)'} Ready`,
  check: (s, path) => labelSelectorFault(path, s),
  judge: (_s, node, pods = []) =>
    pods.length > 0 ? [`pods not ready on ${node.metadata.name ?? ''}: ${pods.join(', ')}`] : [],
};
