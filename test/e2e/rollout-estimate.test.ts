/**
 * The rollout's ETA through real processes (`mco apiserver`, `mco operator`, `mco controller`)
 * with twenty workers played by in-process daemons (test/support/agent-cluster.ts), two at a time:
 * at the half-way point the pool's RolloutEstimate condition (written by the controller), as
 * kubectl reads it, and `mco rollout status` agree, and the end they announce is
 * within 25 % of the time the rest of the rollout then takes. The windows' part of the estimate is
 * unit-tested on a fixed clock (src/logic/rollout-policy/rollout-estimate.test.ts).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutEstimateCondition } from '../../src/api/machineconfiguration/v1/rollout-policy.js';
import { Resources } from '../../src/api/resource-refs.js';
import { startAgentCluster, type AgentCluster } from '../support/agent-cluster.js';
import { hasMcoCommand, McoBin } from '../support/mco-processes.js';
import { sleep, until } from '../support/until.js';
import { kubectl } from './apiserver-harness.js';

const Workers = 20;
const Minute = 60_000;

/** `mco ARGS` without blocking this process (the node agents run in it). */
function mco(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [McoBin, ...args], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.on('close', (code) => {
      resolve({ code, stdout });
    });
  });
}

describe('the rollout ETA at the half-way point of a 20-node rollout', () => {
  let cluster: AgentCluster | undefined;
  const c = () => {
    if (cluster === undefined) throw new Error('no cluster');
    return cluster;
  };
  const getPool = () => c().admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');

  beforeAll(async () => {
    const deadline = Date.now() + 20 * Minute;
    while (!hasMcoCommand('controller')) {
      if (Date.now() > deadline) throw new Error('`mco controller --help` does not work: build it');
      await sleep(5000);
    }
    cluster = await startAgentCluster({ workers: Workers, applyMs: 1500 });
    await until(
      'every worker on the first config',
      async () => ((await getPool()).status?.updatedMachineCount === Workers ? true : undefined),
      2 * Minute,
    );
  }, 12 * Minute);

  afterAll(async () => {
    await cluster?.stop();
  });

  it(
    'is within 25 % of the time the second half takes, and is what kubectl and mco rollout status print',
    async () => {
      const { admin, api } = c();
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        { spec: { maxUnavailable: 2 } },
        'merge',
      );
      const before = (await getPool()).spec.configuration?.name ?? '';
      await admin.create(Resources.machineConfig, {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfig',
        metadata: {
          name: '50-worker-eta',
          labels: { 'machineconfiguration.openshift.io/role': 'worker' },
        },
        spec: {
          config: {
            ignition: { version: '3.2.0' },
            storage: {
              files: [{ path: '/etc/eta', mode: 420, contents: { source: 'data:,eta' } }],
            },
          },
        },
      });
      const target = await until('the new target', async () => {
        const name = (await getPool()).spec.configuration?.name ?? '';
        return name !== before && name !== '' ? name : undefined;
      });
      // Before any node is done there is no figure
      const early = await until('the first estimate condition', async () =>
        (await getPool()).status?.conditions?.find((x) => x.type === RolloutEstimateCondition),
      );
      expect(early).toMatchObject({ status: 'True', reason: 'Estimating' });
      const half = await until(
        'half of the workers on the target',
        async () => {
          const p = await getPool();
          const done = p.status?.updatedMachineCount ?? 0;
          const estimate = p.status?.conditions?.find((x) => x.type === RolloutEstimateCondition);
          return done >= Workers / 2 && estimate?.reason === 'Estimated'
            ? { at: Date.now(), done, estimate }
            : undefined;
        },
        { timeoutMs: 3 * Minute, intervalMs: 50 },
      );
      expect(half.done).toBe(Workers / 2);
      const finishesAt = Date.parse(half.estimate.message ?? '');
      const [conditionByKubectl, status] = await Promise.all([
        kubectl(
          [
            'get',
            'mcp',
            'worker',
            '-o',
            'jsonpath={.status.conditions[?(@.type=="RolloutEstimate")].message}',
          ],
          {
            kubeconfig: api.kubeconfig('admin'),
            cacheDir: `/tmp/mco-rollout-estimate-kubectl-${process.pid}`,
          },
        ),
        mco([
          'rollout',
          'status',
          'mcp/worker',
          '--watch=false',
          '--kubeconfig',
          api.kubeconfig('admin'),
        ]),
      ]);
      await until(
        'the rollout to finish',
        async () => {
          const p = await getPool();
          const updated =
            p.status?.conditions?.find((x) => x.type === 'Updated')?.status === 'True';
          return updated && p.status?.configuration?.name === target ? true : undefined;
        },
        { timeoutMs: 3 * Minute, intervalMs: 50 },
      );
      const actual = Date.now() - half.at;
      const estimated = finishesAt - half.at;
      expect(
        Math.abs(estimated - actual),
        `estimated ${estimated} ms left at half-way, took ${actual} ms`,
      ).toBeLessThanOrEqual(0.25 * actual);
      expect(conditionByKubectl.stdout).toBe(half.estimate.message);
      expect(status.stdout).toMatch(/; about \d+(s|m) left \(done by \d\d:\d\d:\d\d UTC\)\n$/);
      // Done: the condition is gone
      const last = await getPool();
      expect(last.status?.conditions?.some((x) => x.type === RolloutEstimateCondition)).toBe(false);
    },
    8 * Minute,
  );
});
