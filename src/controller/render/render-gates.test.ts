import { describe, expect, it } from 'vitest';
import type { ContainerRuntimeConfig } from '../../api/machineconfiguration/v1/container-runtime-config.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { controllerConfigGate, describeGateError, generatorsGate } from './render-gates.js';

function cc(
  generation: number,
  observed: number,
  conditions: Record<string, string>,
): ControllerConfig {
  return {
    metadata: { name: 'machine-config-controller', generation },
    spec: {} as ControllerConfig['spec'],
    status: {
      observedGeneration: observed,
      conditions: Object.entries(conditions).map(([type, status]) => ({
        type,
        status,
        lastTransitionTime: null,
      })),
    },
  };
}

const describeGate = (g: ReturnType<typeof controllerConfigGate>) =>
  g === undefined ? undefined : describeGateError(g);

describe('controllerConfigGate (IsControllerConfigCompleted)', () => {
  it.each([
    ['completed', cc(2, 2, { TemplateControllerCompleted: 'True' }), undefined],
    [
      'stale status',
      cc(3, 2, { TemplateControllerCompleted: 'True' }),
      'status for ControllerConfig machine-config-controller is being reported for 2, expecting it for 3',
    ],
    [
      'running',
      cc(1, 1, { TemplateControllerCompleted: 'True', TemplateControllerRunning: 'True' }),
      'ControllerConfig has not completed: completed(true) running(true) failing(false)',
    ],
    [
      'failing',
      cc(1, 1, { TemplateControllerFailing: 'True' }),
      'ControllerConfig has not completed: completed(false) running(false) failing(true)',
    ],
    [
      'missing',
      undefined,
      'controllerconfig.machineconfiguration.openshift.io "machine-config-controller" not found',
    ],
  ])('%s', (_what, config, expected) => {
    expect(describeGate(controllerConfigGate(config))).toBe(expected);
  });
});

const workerPool: MachineConfigPool = {
  metadata: {
    name: 'worker',
    labels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' },
  },
  spec: {},
};
const selector = { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } };

function kc(
  name: string,
  generation: number,
  observed: number,
  last?: [string, string],
): KubeletConfig {
  return {
    metadata: { name, generation },
    spec: { machineConfigPoolSelector: selector },
    status: {
      observedGeneration: observed,
      conditions: last === undefined ? [] : [{ type: last[0], status: last[1] }],
    },
  };
}

describe('generatorsGate (AreMCGeneratingSubControllersCompletedForPool)', () => {
  it.each([
    ['no generators', [], [], undefined],
    ['kubelet config succeeded', [kc('a', 1, 1, ['Success', 'True'])], [], undefined],
    ['kubelet config accepted', [kc('a', 2, 2, ['Accepted', 'True'])], [], undefined],
    [
      'kubelet config generation not observed',
      [kc('a', 2, 1, ['Success', 'True'])],
      [],
      'status for KubeletConfig a is being reported for 1, expecting it for 2',
    ],
    [
      'kubelet config failed',
      [kc('a', 1, 1, ['Failure', 'False'])],
      [],
      'KubeletConfig has not completed: a',
    ],
    ['no conditions', [kc('a', 1, 1)], [], 'KubeletConfig has not completed: a'],
    [
      'a container runtime config without conditions',
      [],
      [
        {
          ...kc('c', 1, 1),
          spec: { machineConfigPoolSelector: selector, containerRuntimeConfig: {} },
        },
      ],
      'ContainerRuntimeConfig has not completed: c',
    ],
    [
      'a failed config for another pool does not matter',
      [
        {
          ...kc('a', 1, 1, ['Failure', 'False']),
          spec: { machineConfigPoolSelector: { matchLabels: { x: 'y' } } },
        },
      ],
      [],
      undefined,
    ],
    [
      'an empty selector selects no pool',
      [{ ...kc('a', 1, 1, ['Failure', 'False']), spec: { machineConfigPoolSelector: {} } }],
      [],
      undefined,
    ],
  ] as [string, KubeletConfig[], ContainerRuntimeConfig[], string | undefined][])(
    '%s',
    (_what, kubelets, crcs, expected) => {
      const g = generatorsGate(workerPool, kubelets, crcs);
      expect(g === undefined ? undefined : describeGateError(g)).toBe(expected);
    },
  );
});
