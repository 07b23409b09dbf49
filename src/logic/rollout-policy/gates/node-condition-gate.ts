/**
 * `gates.nodeCondition`: each updated node must carry a condition with the given status (a
 * node-problem-detector condition, say). Read from the Node object, so it has no probe; a failure
 * within the soak is the node's own and counts for a revert.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { NodeGateKind } from './gate-kind.js';

const NodeConditionGateSchema = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 316 }),
    status: Type.Union([Type.Literal('True'), Type.Literal('False')]),
  },
  { additionalProperties: false },
);
export type NodeConditionGate = Static<typeof NodeConditionGateSchema>;

export const nodeConditionGate: NodeGateKind<NodeConditionGate, undefined> = {
  scope: 'node',
  schema: NodeConditionGateSchema,
  countsForRevert: true,
  describe: (c) => `node condition ${c.type} is ${c.status}`,
  judge(c, node) {
    const have = node.status?.conditions?.find((x) => x.type === c.type)?.status;
    return have === c.status
      ? []
      : [
          `node ${node.metadata.name ?? ''} condition ${c.type} is ${have ?? 'missing'}, expected ${c.status}`,
        ];
  },
};
