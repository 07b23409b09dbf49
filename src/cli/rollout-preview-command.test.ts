import { describe, expect, it } from 'vitest';
import { mc, pool } from '../../test/support/machine-configs.js';
import { planSummary } from '../../test/support/plan-summaries.js';
import { applyConfigs, applyPools } from '../logic/nodeplan/pool-change.js';
import { sortApplied } from './cluster-inputs.js';
import { failingNodes, summaryLine, type NodePreview } from './rollout-preview-command.js';

const plan = planSummary;
const rebooting = plan({
  actions: ['Reboot'],
  drain: true,
  reboot: true,
  changedPaths: ['/etc/a'],
});
const crio = plan({
  actions: ['Reload crio.service'],
  changedPaths: ['/etc/containers/policy.json'],
});
const same = plan({});
const node = (name: string, p: NodePreview['plan']): NodePreview => ({
  node: name,
  current: 'rendered-worker-a',
  plan: p,
});

describe('rollout preview', () => {
  it('the summary groups nodes by effect, largest group first', () => {
    const nodes = [
      node('a', crio),
      node('b', rebooting),
      node('c', same),
      node('d', rebooting),
      node('e', rebooting),
      node('f', crio),
    ];
    expect(summaryLine(nodes)).toBe(
      '3 nodes will drain and reboot, 2 will reload crio.service, 1 is unchanged',
    );
    expect(summaryLine([node('a', same), node('b', same)])).toBe('2 nodes are unchanged');
    expect(summaryLine([node('a', crio)])).toBe('1 node will reload crio.service');
    expect(summaryLine([])).toBe('the pool has no nodes');
  });

  it('--fail-on: reboot, drain, blocked, any; a node without a plan always fails', () => {
    const drainOnly = plan({ actions: ['Drain'], drain: true, sshKeys: true });
    const nodes = [
      node('r', rebooting),
      node('d', drainOnly),
      node('c', crio),
      node('s', same),
      node('x', { error: 'current config "gone" not found' }),
    ];
    expect(failingNodes(nodes, 'reboot')).toEqual(['r', 'x']);
    expect(failingNodes(nodes, 'drain')).toEqual(['r', 'd', 'x']);
    expect(failingNodes(nodes, 'any')).toEqual(['r', 'd', 'c', 'x']);
    // blocked: a node whose drain meets a pod it cannot evict.
    const counts = { stays: 0, blocked: 0, deleted: 0, evicted: 1 };
    const clear = { ...node('e', rebooting), drainPreflight: { pods: [], counts } };
    const stuck = {
      ...node('b', rebooting),
      drainPreflight: { pods: [], counts: { ...counts, blocked: 1 } },
    };
    expect(failingNodes([clear, stuck, node('x', { error: 'gone' })], 'blocked')).toEqual([
      'b',
      'x',
    ]);
  });

  it('the files replace MachineConfigs by name and add new ones', () => {
    const cluster = [
      {
        ...mc('00-worker', 'worker'),
        metadata: { name: '00-worker', resourceVersion: '5', labels: {} },
      },
      mc('50-a', 'worker', { kernelArguments: ['a'] }),
    ];
    const applied = applyConfigs(cluster, [
      mc('00-worker', 'worker', { kernelArguments: ['x'] }),
      mc('60-new', 'worker'),
    ]);
    expect(applied.map((m) => m.metadata.name)).toEqual(['00-worker', '50-a', '60-new']);
    expect(applied[0]?.spec?.kernelArguments).toEqual(['x']);
    expect(applied[0]?.metadata.resourceVersion).toBe('5');
  });

  it('applies MachineConfigs and pools from the files and skips other kinds with a note', () => {
    const infra = pool('infra', ['worker', 'infra']);
    const sorted = sortApplied([
      mc('50-infra-motd', 'infra'),
      infra,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
      { apiVersion: 'v1', metadata: {} },
    ]);
    expect(sorted.configs.map((m) => m.metadata.name)).toEqual(['50-infra-motd']);
    expect(sorted.pools).toEqual([infra]);
    expect(sorted.skipped).toEqual([
      'skipped Namespace team-a: rollout preview applies MachineConfigs and MachineConfigPools only',
      'skipped an object with no kind: rollout preview applies MachineConfigs and MachineConfigPools only',
    ]);
  });

  it('refuses a pool it cannot apply rather than preview another change', () => {
    expect(() => sortApplied([{ kind: 'MachineConfigPool', metadata: {}, spec: {} }])).toThrow(
      'a MachineConfigPool in the files has no metadata.name',
    );
    expect(() => sortApplied([{ kind: 'MachineConfigPool', metadata: { name: 'infra' } }])).toThrow(
      'MachineConfigPool infra in the files has no spec',
    );
    expect(() =>
      sortApplied([{ kind: 'MachineConfigPool', metadata: { name: 'infra' }, spec: [] }]),
    ).toThrow('has no spec');
  });

  it('a pool from the files replaces the spec of the one of that name, keeping its rendered target and status', () => {
    const worker = {
      ...pool('worker'),
      spec: { ...pool('worker').spec, configuration: { name: 'rendered-worker-a' } },
      status: { machineCount: 2 },
    };
    const edited = { ...pool('worker'), spec: { ...pool('worker').spec, maxUnavailable: 2 } };
    const infra = pool('infra', ['worker', 'infra']);
    const applied = applyPools([worker, pool('master')], [edited, infra]);
    expect(applied.map((p) => p.metadata.name)).toEqual(['worker', 'master', 'infra']);
    expect(applied[0]?.spec.maxUnavailable).toBe(2);
    expect(applied[0]?.spec.configuration?.name).toBe('rendered-worker-a');
    expect(applied[0]?.status).toEqual({ machineCount: 2 });
    expect(applied[2]).toEqual({ metadata: infra.metadata, spec: infra.spec });
  });
});
