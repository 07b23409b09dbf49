import { describe, expect, it } from 'vitest';
import type { CertificateSigningRequest } from '../../api/certificates/v1/certificate-signing-request.js';
import type { Node } from '../../api/core/v1/node.js';
import type { Pod } from '../../api/core/v1/pod.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { PodDisruptionBudget } from '../../api/policy/v1/pod-disruption-budget.js';
import { mcn, node, pool } from '../../../test/support/dashboard-objects.js';
import { degradedBlocker } from './degraded-blocker.js';
import { diagnosePool, type DiagnosisInput } from './rollout-diagnosis.js';

const A = 'rendered-worker-a';
const B = 'rendered-worker-b';

const source = (name: string, spec: NonNullable<MachineConfig['spec']>): MachineConfig => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfig',
  metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
  spec,
});

function draining(name: string): Node {
  const n = node(name, { current: A, desired: B, state: 'Working', unschedulable: true });
  return {
    ...n,
    metadata: {
      ...n.metadata,
      annotations: {
        ...n.metadata.annotations,
        [Annotation.desiredDrain]: `drain-${B}`,
        [Annotation.lastAppliedDrain]: `uncordon-${A}`,
      },
    },
  };
}

const pod = (name: string, extra: Partial<Pod['metadata']> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', ...extra },
  spec: { nodeName: 'worker-0', containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

const budget: PodDisruptionBudget = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'db', namespace: 'shop' },
  spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
  status: { currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 },
};

function input(p: MachineConfigPool, nodes: Node[], more: Partial<DiagnosisInput> = {}) {
  return { pool: p, pools: [p], nodes, machineConfigNodes: [], machineConfigs: [], ...more };
}

describe('diagnosePool', () => {
  it('finds nothing stuck when every node is Done at the target', () => {
    const p = pool('worker', { target: B, current: B, conditions: { Updated: 'True' } });
    const nodes = [node('worker-0', { current: B, desired: B, state: 'Done' })];
    expect(diagnosePool(input(p, nodes))).toEqual({
      pool: 'worker',
      target: B,
      updated: 1,
      total: 1,
      stuck: false,
      blockers: [],
      nodes: [],
    });
  });

  it('a node updating with nothing in its way, and one waiting its turn, are not stuck', () => {
    const p = pool('worker', { target: B, current: A, conditions: { Updated: 'False' } });
    const nodes = [
      node('worker-0', { current: A, desired: B, state: 'Working' }),
      node('worker-1', { current: A, desired: A, state: 'Done' }),
    ];
    const d = diagnosePool(input(p, nodes));
    expect(d.stuck).toBe(false);
    expect(d.nodes.map((n) => [n.node, n.phase, n.stuck, n.blockers.length])).toEqual([
      ['worker-0', 'Updating', false, 0],
      ['worker-1', 'Waiting', false, 0],
    ]);
  });

  it('a paused pool keeps every node not yet targeted waiting, with the command that unpauses', () => {
    const p = pool('worker', { target: B, current: A, paused: true });
    const nodes = [node('worker-0', { current: A, desired: A, state: 'Done' })];
    const d = diagnosePool(input(p, nodes));
    expect(d.stuck).toBe(true);
    expect(d.nodes[0]).toMatchObject({ node: 'worker-0', phase: 'Waiting', stuck: true });
    expect(d.nodes[0]?.blockers).toEqual([
      {
        kind: 'PausedPool',
        object: 'mcp/worker',
        why: 'the pool is paused: the node controller points no node at a new config',
        fix: `kubectl patch mcp/worker --type merge -p '{"spec":{"paused":false}}'`,
      },
    ]);
  });

  it.each([
    ['OutsideMaintenanceWindow', 'MaintenanceWindow', 'it lifts when a maintenance window opens'],
    ['HealthGateFailed', 'HealthGate', 'kubectl annotate mcp/worker rollout.mco.dev/policy-'],
    ['CanaryWaiting', 'RolloutHold', 'mco rollout resume mcp/worker'],
  ])('a %s hold is a %s blocker whose fix says %s', (reason, kind, fix) => {
    const p = pool('worker', {
      target: B,
      current: A,
      conditions: { RolloutHeld: { status: 'True', reason, message: 'held' } },
    });
    const nodes = [node('worker-0', { current: A, desired: A, state: 'Done' })];
    const d = diagnosePool(input(p, nodes));
    expect(d.nodes[0]?.since).toBe('2026-01-01T00:00:00Z');
    expect(d.nodes[0]?.blockers[0]).toMatchObject({ kind, why: 'held' });
    expect(d.nodes[0]?.blockers[0]?.fix).toContain(fix);
  });

  it('a render failure is stuck though every node is on the old target', () => {
    const p = pool('worker', {
      target: A,
      current: A,
      conditions: {
        RenderDegraded: { status: 'True', message: 'invalid extensions found: [wireshark]' },
      },
    });
    const nodes = [node('worker-0', { current: A, desired: A, state: 'Done' })];
    const d = diagnosePool(input(p, nodes));
    expect(d.stuck).toBe(true);
    expect(d.blockers.map((b) => [b.kind, b.why])).toEqual([
      ['RenderFailed', 'invalid extensions found: [wireshark]'],
    ]);
  });

  it('a drain held by a budget at zero and by a deleted pod its finalizers keep', () => {
    const p = pool('worker', { target: B, current: A });
    const nodes = [draining('worker-0')];
    const pods = [
      pod('db-0', {
        labels: { app: 'db' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u', controller: true },
        ],
      }),
      pod('keeper', {
        finalizers: ['example.com/keep'],
        deletionTimestamp: '2026-01-01T00:01:00Z',
      }),
      pod('web', {}),
    ];
    const d = diagnosePool(
      input(p, nodes, {
        pods,
        budgets: [budget],
        machineConfigNodes: [mcn('worker-0', { Drained: 'Unknown' })],
      }),
    );
    const [n] = d.nodes;
    expect(n).toMatchObject({ phase: 'Draining', stuck: true, since: '2026-01-01T00:00:00Z' });
    expect(n?.blockers.map((b) => [b.kind, b.object])).toEqual([
      ['PodDisruptionBudget', 'poddisruptionbudget/db -n shop'],
      ['Pod', 'pod/keeper -n shop'],
    ]);
    expect(n?.blockers[0]?.why).toBe(
      'PodDisruptionBudget shop/db allows no disruption (1 healthy, 1 needed); it protects pod/db-0 on this node, so the eviction is refused and retried',
    );
    expect(n?.blockers[1]?.why).toBe(
      'no controller owns it; it was evicted at 2026-01-01T00:01:00Z but its finalizers [example.com/keep] keep it, and the drain waits for it to be gone',
    );
  });

  it('a drain whose pods may not be listed is named, not explained', () => {
    const p = pool('worker', { target: B, current: A });
    const d = diagnosePool(input(p, [draining('worker-0')]));
    expect(d.nodes[0]?.blockers.map((b) => b.why)).toEqual([
      'its drain is not done; the pods on it could not be listed',
    ]);
  });

  it('a Degraded node carries its reason, read for what it names', () => {
    const p = pool('worker', { target: B, current: A });
    const nodes = [
      node('worker-0', {
        current: A,
        desired: B,
        state: 'Degraded',
        reason:
          'failed to apply extensions: cannot install extensions [usbguard]: the config names no extensions image (baseOSExtensionsContainerImage)',
      }),
    ];
    const d = diagnosePool(
      input(p, nodes, {
        machineConfigs: [source('70-usbguard', { extensions: ['usbguard'] })],
        machineConfigNodes: [mcn('worker-0', { NodeDegraded: 'True' })],
      }),
    );
    expect(d.nodes[0]).toMatchObject({
      phase: 'Degraded',
      stuck: true,
      since: '2026-01-01T00:00:00Z',
    });
    expect(d.nodes[0]?.blockers[0]).toMatchObject({ kind: 'Extension', object: 'mc/70-usbguard' });
    expect(d.nodes[0]?.blockers[0]?.fix).toContain('mco upgrade');
  });

  it('an unapproved certificate request of a node is a blocker with the approve command', () => {
    const p = pool('worker', { target: B, current: B });
    const nodes = [node('worker-0', { current: B, desired: B, state: 'Done' })];
    const csr: CertificateSigningRequest = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'csr-abc', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        request: '',
        signerName: 'kubernetes.io/kubelet-serving',
        username: 'system:node:worker-0',
      },
    };
    const d = diagnosePool(input(p, nodes, { certificateSigningRequests: [csr] }));
    expect(d.stuck).toBe(true);
    expect(d.nodes[0]?.blockers).toEqual([
      expect.objectContaining({
        kind: 'CertificateSigningRequest',
        object: 'csr/csr-abc',
        fix: 'kubectl certificate approve csr-abc',
      }),
    ]);
  });
});

describe('degradedBlocker', () => {
  const configs = [source('60-image', { osImageURL: 'r.example/os@sha256:00' })];

  it.each([
    [
      'unexpected on-disk state validating against rendered-worker-b: content mismatch for file "/etc/chrony.conf"',
      'DriftedFile',
      'file /etc/chrony.conf on node/worker-0',
    ],
    [
      'unexpected on-disk state validating against rendered-worker-b: mode mismatch for file: "/etc/x"; expected: -rw-r--r--/420/0644; received: -rwxr-xr-x/493/0755',
      'DriftedFile',
      'file /etc/x on node/worker-0',
    ],
    [
      'failed to update OS to 127.0.0.1:5000/testos@sha256:abc: reading manifest sha256:abc in 127.0.0.1:5000/testos: manifest unknown',
      'Image',
      '127.0.0.1:5000/testos@sha256:abc',
    ],
    [
      'failed to apply extensions: the extensions image x does not ship the extensions [sysstat]',
      'Extension',
      'the extensions of the rendered config',
    ],
    ['something else broke', 'Degraded', 'node/worker-0'],
  ])('%s → %s', (reason, kind, object) => {
    expect(degradedBlocker('worker-0', reason, configs)).toMatchObject({ kind, object });
  });

  it('names the MachineConfig that sets the image in the fix', () => {
    expect(
      degradedBlocker(
        'worker-0',
        'failed to update OS to r.example/os@sha256:00: manifest unknown',
        configs,
      ).fix,
    ).toContain('mc/60-image');
  });
});
