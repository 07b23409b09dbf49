import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { builtInPool } from '../pools/built-in-pools.js';
import {
  checkRequiredPools,
  describeRequiredPoolsTimeout,
  requiredPoolsTimeoutMs,
  type RequiredPoolsInput,
} from './required-pools.js';

const A = 'machineconfiguration.openshift.io/';

function mc(
  name: string,
  annotations: Record<string, string>,
  osImageURL = 'quay.io/os:1',
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, annotations },
    spec: { osImageURL },
  };
}

const good = mc('rendered-master-1', {
  [`${A}generated-by-controller-version`]: 'hash-1',
  [`${A}release-image-version`]: '4.17.0',
});
const configs = new Map<string, MachineConfig>([
  [good.metadata.name ?? '', good],
  ['00-master', mc('00-master', { [`${A}generated-by-controller-version`]: 'hash-1' })],
  ['99-user', mc('99-user', {})],
]);

function master(over: {
  status?: Partial<NonNullable<MachineConfigPool['status']>>;
  conditions?: Record<string, string>;
  paused?: boolean;
  generation?: number;
  target?: string;
}): MachineConfigPool {
  const p = builtInPool('master');
  const target = over.target ?? 'rendered-master-1';
  return {
    ...p,
    metadata: { ...p.metadata, generation: over.generation ?? 2 },
    spec: {
      ...p.spec,
      configuration: { name: target },
      ...(over.paused === undefined ? {} : { paused: over.paused }),
    },
    status: {
      observedGeneration: 2,
      machineCount: 3,
      updatedMachineCount: 3,
      readyMachineCount: 3,
      unavailableMachineCount: 0,
      degradedMachineCount: 0,
      configuration: { name: target, source: [{ name: '00-master' }, { name: '99-user' }] },
      ...over.status,
      conditions: Object.entries(over.conditions ?? { Updated: 'True' }).map(([type, status]) => ({
        type,
        status,
        ...(type === 'Degraded' ? { message: 'Node m-1 is reporting: "x"' } : {}),
      })),
    },
  };
}

function input(
  pools: MachineConfigPool[],
  more: Partial<RequiredPoolsInput> = {},
): RequiredPoolsInput {
  return {
    pools,
    machineConfig: (n) => configs.get(n),
    controllerVersion: 'hash-1',
    releaseVersion: '4.17.0',
    osImageURL: 'quay.io/os:1',
    ...more,
  };
}

describe('checkRequiredPools', () => {
  it('opens when master is Updated at this controller, release and OS image', () => {
    expect(checkRequiredPools(input([master({})]))).toEqual({ kind: 'Ready' });
  });

  it.each([
    [
      'master still updating',
      [
        master({
          conditions: { Updated: 'False', Updating: 'True' },
          status: { updatedMachineCount: 1, readyMachineCount: 1, unavailableMachineCount: 1 },
        }),
      ],
      {},
      'required MachineConfigPool master is not ready, retrying. Status: (total: 3, ready 1, updated: 1, unavailable: 1, degraded: 0)',
    ],
    [
      'spec generation not observed yet',
      [master({ generation: 3 })],
      {},
      'required MachineConfigPool master is not ready, retrying. Status: (total: 3, ready 3, updated: 3, unavailable: 0, degraded: 0)',
    ],
    [
      'a degraded worker holds the gate too',
      [
        master({}),
        {
          ...builtInPool('worker'),
          status: {
            machineCount: 2,
            readyMachineCount: 1,
            updatedMachineCount: 1,
            unavailableMachineCount: 1,
            degradedMachineCount: 1,
            conditions: [
              { type: 'Degraded', status: 'True', message: 'Node w-1 is reporting: "x"' },
            ],
          },
        },
      ],
      {},
      'MachineConfigPool worker is not ready, retrying. Status: (pool degraded: true total: 2, ready 1, updated: 1, unavailable: 1, reason: Node w-1 is reporting: "x")',
    ],
    [
      'no status configuration yet',
      [master({ status: { configuration: { name: '' } }, conditions: { Updating: 'True' } })],
      {},
      'MachineConfigPool master has not progressed to latest configuration: configuration status for pool master is empty: 3 (ready 3) out of 3 nodes are updating to latest configuration rendered-master-1, retrying',
    ],
    [
      'rendered by another controller',
      [master({})],
      { controllerVersion: 'hash-2' },
      'MachineConfigPool master has not progressed to latest configuration: controller version mismatch for rendered-master-1 expected hash-2 has hash-1: all 3 nodes are at latest configuration rendered-master-1, retrying',
    ],
    [
      'another OS image',
      [master({})],
      { osImageURL: 'quay.io/os:2' },
      'MachineConfigPool master has not progressed to latest configuration: osImageURL mismatch for master in rendered-master-1 expected: quay.io/os:2 got: quay.io/os:1, retrying',
    ],
    [
      'another release',
      [master({})],
      { releaseVersion: '4.18.0' },
      'MachineConfigPool master has not progressed to latest configuration: release image version mismatch for master in rendered-master-1 expected: 4.18.0 got: 4.17.0, retrying',
    ],
    [
      'rendered config missing',
      [master({ target: 'rendered-master-9' })],
      {},
      'MachineConfigPool master has not progressed to latest configuration: machineconfig.machineconfiguration.openshift.io "rendered-master-9" not found, retrying',
    ],
  ])('waits: %s', (_name, pools, more, error) => {
    expect(checkRequiredPools(input(pools, more))).toEqual({ kind: 'Waiting', error });
  });

  it.each([
    [
      'paused with work left',
      master({ paused: true, conditions: { Updated: 'False', Updating: 'False' } }),
      'required MachineConfigPool master is paused and cannot sync until it is unpaused',
    ],
    [
      'paused with a new generation while Updated',
      master({ paused: true, generation: 3 }),
      'the required MachineConfigPool master was paused with no pending updates; no further syncing will occur until it is unpaused',
    ],
  ])('fails at once: %s', (_name, p, error) => {
    expect(checkRequiredPools(input([p]))).toEqual({ kind: 'Failed', error });
  });

  it('a paused master that is Updated and observed passes', () => {
    expect(checkRequiredPools(input([master({ paused: true })]))).toEqual({ kind: 'Ready' });
  });

  it("gives 10 minutes per required machine, one machine's worth to an empty master pool", () => {
    expect(requiredPoolsTimeoutMs([master({}), builtInPool('worker')])).toBe(30 * 60 * 1000);
    expect(requiredPoolsTimeoutMs([master({ status: { machineCount: 0 } })])).toBe(10 * 60 * 1000);
    expect(requiredPoolsTimeoutMs([builtInPool('worker')])).toBe(10 * 60 * 1000);
    expect(describeRequiredPoolsTimeout('e')).toBe(
      'during syncRequiredMachineConfigPools: [context deadline exceeded, e]',
    );
    expect(describeRequiredPoolsTimeout(undefined)).toBe(
      'during syncRequiredMachineConfigPools: context deadline exceeded',
    );
  });
});
