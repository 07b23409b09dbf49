import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import type { UserInfo } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { nodeIdentity, SystemIdentity } from './identities.js';
import { generateNodeToken, nodeTokenSecret } from './node-token.js';
import { withRestrictionAdmission } from './restriction-admission.js';
import { fixedStore, resourceType } from './testing.js';

const nodes = resourceType('', 'nodes', 'Node', false);
const leases = resourceType('coordination.k8s.io', 'leases', 'Lease', true);
const mcns = resourceType(
  'machineconfiguration.openshift.io',
  'machineconfignodes',
  'MachineConfigNode',
  false,
);
const secrets = resourceType('', 'secrets', 'Secret', true);
const store = withRestrictionAdmission(fixedStore(new Map()));
const options = (user: UserInfo) => ({ user, dryRun: false });
const named = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name },
  ...extra,
});

async function createOutcome(
  user: UserInfo,
  rt: ResourceType,
  ns: string | undefined,
  body: unknown,
): Promise<string> {
  try {
    await store.create(rt, ns, body, options(user));
    return 'created';
  } catch (e) {
    if (!isStatusError(e)) throw e;
    return `${e.code} ${e.message}`;
  }
}

describe('withRestrictionAdmission', () => {
  it.each([
    [nodeIdentity('n1'), nodes, undefined, named('n1'), 'created'],
    [
      nodeIdentity('n1'),
      nodes,
      undefined,
      named('n2'),
      '403 nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    ],
    [nodeIdentity('n1'), leases, 'kube-node-lease', named('n1'), 'created'],
    [
      nodeIdentity('n1'),
      leases,
      'kube-node-lease',
      named('n2'),
      '403 leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node',
    ],
    [
      nodeIdentity('n1'),
      mcns,
      undefined,
      named('n2'),
      '403 machineconfignodes.machineconfiguration.openshift.io "n2" is forbidden: node "n1" is not allowed to modify machineconfignode "n2"',
    ],
    [SystemIdentity.admin, nodes, undefined, named('n2'), 'created'],
    [
      SystemIdentity.bootstrap,
      secrets,
      'kube-system',
      nodeTokenSecret('n5', generateNodeToken()),
      'created',
    ],
    [
      SystemIdentity.bootstrap,
      secrets,
      'kube-system',
      named('x', { type: 'Opaque' }),
      '403 secrets "x" is forbidden: user "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper" may only create secrets of type "machineconfiguration.openshift.io/node-token" in the namespace "kube-system"',
    ],
  ])('%j creating %s %j', async (user, rt, ns, body, expected) => {
    expect(await createOutcome(user, rt, ns, body)).toBe(expected);
  });
});
