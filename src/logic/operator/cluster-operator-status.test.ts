import { describe, expect, it } from 'vitest';
import type { ClusterOperatorStatus } from '../../api/config/v1/cluster-operator.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { builtInPool } from '../pools/built-in-pools.js';
import {
  finishedRoundStatus,
  formatOperandVersions,
  initialClusterOperatorStatus,
  pendingRoundStatus,
  poolStatusSummary,
  setStatusCondition,
  statusExtension,
} from './cluster-operator-status.js';

const T0 = '2026-11-29T10:00:00Z';
const T1 = '2026-11-29T10:05:00Z';
const ns = 'openshift-machine-config-operator';
const v1 = { operator: '4.17.0', operatorImage: 'quay.io/mco:1' };
const v2 = { operator: '4.18.0', operatorImage: 'quay.io/mco:2' };

function pool(
  name: 'master' | 'worker',
  status: Partial<NonNullable<MachineConfigPool['status']>>,
  conditions: Record<string, [string, string?, string?]> = {},
  target = `rendered-${name}-new`,
): MachineConfigPool {
  const p = builtInPool(name);
  return {
    ...p,
    spec: { ...p.spec, configuration: { name: target } },
    status: {
      machineCount: 3,
      updatedMachineCount: 3,
      readyMachineCount: 3,
      unavailableMachineCount: 0,
      degradedMachineCount: 0,
      ...status,
      conditions: Object.entries(conditions).map(([type, [s, reason, message]]) => ({
        type,
        status: s,
        ...(reason === undefined ? {} : { reason }),
        ...(message === undefined ? {} : { message }),
      })),
    },
  };
}

const updated = (name: 'master' | 'worker') =>
  pool(
    name,
    { configuration: { name: `rendered-${name}-new` } },
    { Updated: ['True'], Updating: ['False'] },
  );

function conditions(s: ClusterOperatorStatus): Record<string, string> {
  return Object.fromEntries(
    (s.conditions ?? []).map((c) => [
      c.type,
      [c.status, c.reason ?? '', c.message ?? ''].join(' | '),
    ]),
  );
}

describe('ClusterOperator status pieces', () => {
  it('prints operand versions as Go prints the slice', () => {
    expect(
      formatOperandVersions([
        { name: 'operator', version: '4.17.0' },
        { name: 'operator-image', version: 'img' },
      ]),
    ).toBe('[{operator 4.17.0} {operator-image img}]');
    expect(formatOperandVersions(undefined)).toBe('[]');
  });

  it('keeps a condition in place and its transition time while the status holds', () => {
    let c = setStatusCondition([], { type: 'A', status: 'True', reason: 'R', message: 'm' }, T0);
    c = setStatusCondition(c, { type: 'B', status: 'False' }, T0);
    c = setStatusCondition(c, { type: 'A', status: 'True', message: 'other' }, T1);
    expect(c).toEqual([
      { type: 'A', status: 'True', lastTransitionTime: T0, message: 'other' },
      { type: 'B', status: 'False', lastTransitionTime: T0 },
    ]);
    c = setStatusCondition(c, { type: 'A', status: 'False' }, T1);
    expect(c[0]).toEqual({ type: 'A', status: 'False', lastTransitionTime: T1 });
  });

  it('starts unavailable, with the versions, upgradeability unknown', () => {
    const s = initialClusterOperatorStatus(v1, ns, T0);
    expect(conditions(s)).toEqual({
      Available: 'False |  | ',
      Progressing: 'False |  | ',
      Degraded: 'False |  | ',
      Upgradeable: 'Unknown | NoData | ',
      EvaluationConditionsDetected: 'False | AsExpected | ',
    });
    expect(s.versions).toEqual([
      { name: 'operator', version: '4.17.0' },
      { name: 'operator-image', version: 'quay.io/mco:1' },
    ]);
  });

  it.each([
    ['updated', updated('worker'), 'all 3 nodes are at latest configuration rendered-worker-new'],
    [
      'updating',
      pool(
        'worker',
        { updatedMachineCount: 1, readyMachineCount: 1 },
        { Updated: ['False'], Updating: ['True'] },
      ),
      '1 (ready 1) out of 3 nodes are updating to latest configuration rendered-worker-new',
    ],
    [
      'node degraded',
      pool(
        'worker',
        {},
        {
          NodeDegraded: [
            'True',
            '1 nodes are reporting degraded status on sync',
            'Node w is reporting: "boom"',
          ],
          Updating: ['True'],
        },
      ),
      'pool is degraded because nodes fail with "1 nodes are reporting degraded status on sync": "Node w is reporting: \\"boom\\""',
    ],
    [
      'render degraded wins',
      pool(
        'worker',
        {},
        {
          RenderDegraded: ['True', '', 'Failed to render configuration for pool worker: x'],
          NodeDegraded: ['True', 'r', 'm'],
        },
      ),
      'pool is degraded because rendering fails with "": "Failed to render configuration for pool worker: x"',
    ],
    ['no conditions yet', pool('worker', {}), '<unknown>'],
  ])('pool summary: %s', (_name, p, text) => {
    expect(poolStatusSummary(p)).toBe(text);
  });

  it('sorts the extension by pool name and adds lastSyncError', () => {
    expect(Object.keys(statusExtension([updated('worker'), updated('master')], 'e'))).toEqual([
      'lastSyncError',
      'master',
      'worker',
    ]);
  });

  it('adds the notices, sorted with the rest, in finished and pending rounds alike', () => {
    expect(statusExtension([updated('worker')], undefined, { machineAPI: 'none' })).toEqual({
      machineAPI: 'none',
      worker: 'all 3 nodes are at latest configuration rendered-worker-new',
    });
    const input = {
      status: {},
      versions: { operator: '4.18.0', operatorImage: 'img' },
      pools: [updated('worker')],
      namespace: ns,
      now: T1,
      notices: { machineAPI: 'none' },
    };
    expect(finishedRoundStatus(input).extension).toMatchObject({ machineAPI: 'none' });
    expect(pendingRoundStatus({ ...input, lastError: 'e' }).extension).toMatchObject({
      machineAPI: 'none',
      lastSyncError: 'e',
    });
  });
});

describe('a sync round', () => {
  const base = { namespace: ns, now: T1, pools: [updated('master'), updated('worker')] };

  it('a clean round makes the operator available at its version', () => {
    const s = finishedRoundStatus({
      ...base,
      status: initialClusterOperatorStatus(v1, ns, T0),
      versions: v1,
    });
    expect(conditions(s)).toEqual({
      Available:
        'True | AsExpected | Cluster has deployed [{operator 4.17.0} {operator-image quay.io/mco:1}]',
      Progressing: 'False |  | Cluster version is 4.17.0',
      Degraded: 'False |  | ',
      Upgradeable: 'True | AsExpected | ',
      EvaluationConditionsDetected: 'False | AsExpected | ',
    });
    expect(s.extension).toEqual({
      master: 'all 3 nodes are at latest configuration rendered-master-new',
      worker: 'all 3 nodes are at latest configuration rendered-worker-new',
    });
    expect(s.relatedObjects?.[0]).toEqual({ group: '', resource: 'namespaces', name: ns });
    expect(s.relatedObjects).toHaveLength(14);
  });

  it('a failing task in steady state degrades with "Failed to resync"', () => {
    const settled = finishedRoundStatus({
      ...base,
      status: initialClusterOperatorStatus(v1, ns, T0),
      versions: v1,
    });
    const s = finishedRoundStatus({
      ...base,
      status: settled,
      versions: v1,
      error: { task: 'RenderConfig', message: 'configmap "machine-config-osimageurl" not found' },
    });
    expect(conditions(s)['Degraded']).toBe(
      'True | RenderConfigFailed | Failed to resync 4.17.0 because: configmap "machine-config-osimageurl" not found',
    );
    expect(conditions(s)['Progressing']).toBe('False |  | Error while reconciling 4.17.0');
    expect(s.versions?.[0]?.version).toBe('4.17.0');
    // AND the next clean round clears it
    const healed = finishedRoundStatus({ ...base, status: s, versions: v1 });
    expect(conditions(healed)['Degraded']).toBe('False |  | ');
    expect(conditions(healed)['Progressing']).toBe('False |  | Cluster version is 4.17.0');
  });

  it('an upgrade progresses, keeps the old versions while failing, and reports the new ones at the end', () => {
    const settled = finishedRoundStatus({
      ...base,
      status: initialClusterOperatorStatus(v1, ns, T0),
      versions: v1,
    });
    // WHEN the new operator waits for the required pools
    const waiting = pendingRoundStatus({ ...base, status: settled, versions: v2, lastError: 'e1' });
    expect(conditions(waiting)['Progressing']).toBe('True |  | Working towards 4.18.0');
    expect(waiting.versions?.[0]?.version).toBe('4.17.0');
    expect(waiting.extension).toMatchObject({ lastSyncError: 'e1' });
    // AND the wait times out
    const failed = finishedRoundStatus({
      ...base,
      status: waiting,
      versions: v2,
      error: {
        task: 'RequiredPools',
        message: 'during syncRequiredMachineConfigPools: [context deadline exceeded, e1]',
      },
    });
    expect(conditions(failed)['Degraded']).toBe(
      'True | RequiredPoolsFailed | Unable to apply 4.18.0: during syncRequiredMachineConfigPools: [context deadline exceeded, e1]',
    );
    expect(conditions(failed)['Progressing']).toBe('True |  | Unable to apply 4.18.0');
    expect(failed.versions?.[0]?.version).toBe('4.17.0');
    expect(failed.extension).not.toHaveProperty('lastSyncError');
    // THEN once the pools are there, the new versions are reported
    const done = finishedRoundStatus({ ...base, status: failed, versions: v2 });
    expect(done.versions).toEqual([
      { name: 'operator', version: '4.18.0' },
      { name: 'operator-image', version: 'quay.io/mco:2' },
    ]);
    expect(conditions(done)['Degraded']).toBe('False |  | ');
    // Available names the versions stored when the round began (upstream's order)
    expect(conditions(done)['Available']).toBe(
      'True | AsExpected | Cluster has deployed [{operator 4.17.0} {operator-image quay.io/mco:1}]',
    );
    const next = finishedRoundStatus({ ...base, status: done, versions: v2 });
    expect(conditions(next)['Progressing']).toBe('False |  | Cluster version is 4.18.0');
    expect(conditions(next)['Available']).toBe(
      'True | AsExpected | Cluster has deployed [{operator 4.18.0} {operator-image quay.io/mco:2}]',
    );
  });

  it('a degraded pool makes the operator not upgradeable', () => {
    const degraded = pool('worker', {}, { Degraded: ['True'], NodeDegraded: ['True', 'r', 'm'] });
    const s = finishedRoundStatus({
      ...base,
      pools: [updated('master'), degraded],
      status: initialClusterOperatorStatus(v1, ns, T0),
      versions: v1,
    });
    expect(conditions(s)['Upgradeable']).toBe(
      'False | DegradedPool | One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading',
    );
  });

  it('bring-up reports bootstrapping', () => {
    const s = pendingRoundStatus({
      ...base,
      status: initialClusterOperatorStatus(v1, ns, T0),
      versions: v1,
      lastError: 'x',
      inClusterBringup: true,
    });
    expect(conditions(s)['Progressing']).toBe('True |  | Cluster is bootstrapping 4.17.0');
  });
});
