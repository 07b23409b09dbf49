/**
 * The render controller's wait-gates (docs/reference/api.md §2.4, §2.6): a pool is not rendered while
 * the ControllerConfig has not been completed by the template controller, or while a
 * KubeletConfig / ContainerRuntimeConfig that selects the pool has not been processed for its
 * latest generation. A closed gate is an error to retry, never a pool condition.
 */
import {
  ContainerRuntimeConfigConditionType,
  ControllerConfigConditionType,
  ControllerConfigName,
  KubeletConfigConditionType,
} from '../../api/machineconfiguration/v1/constants.js';
import type { ContainerRuntimeConfig } from '../../api/machineconfiguration/v1/container-runtime-config.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { LabelSelector } from '../../api/meta/v1/label-selector.js';
import {
  isEmptySelector,
  matchesLabelSelector,
} from '../../api/meta/v1/label-selector-matching.js';

export type GateError =
  | { readonly kind: 'ControllerConfigMissing'; readonly name: string }
  | {
      readonly kind: 'StaleStatus';
      readonly what: 'ControllerConfig' | 'KubeletConfig' | 'ContainerRuntimeConfig';
      readonly name: string;
      readonly observed: number;
      readonly generation: number;
    }
  | {
      readonly kind: 'ControllerConfigNotCompleted';
      readonly completed: boolean;
      readonly running: boolean;
      readonly failing: boolean;
    }
  | {
      readonly kind: 'NotCompleted';
      readonly what: 'KubeletConfig' | 'ContainerRuntimeConfig';
      readonly name: string;
    };

export function describeGateError(e: GateError): string {
  switch (e.kind) {
    case 'ControllerConfigMissing':
      return `controllerconfig.machineconfiguration.openshift.io "${e.name}" not found`;
    case 'StaleStatus':
      return `status for ${e.what} ${e.name} is being reported for ${e.observed}, expecting it for ${e.generation}`;
    case 'ControllerConfigNotCompleted':
      return `ControllerConfig has not completed: completed(${e.completed}) running(${e.running}) failing(${e.failing})`;
    case 'NotCompleted':
      return `${e.what} has not completed: ${e.name}`;
  }
}

function conditionTrue(cc: ControllerConfig, type: string): boolean {
  return cc.status?.conditions?.find((c) => c.type === type)?.status === 'True';
}

/** IsControllerConfigCompleted. */
export function controllerConfigGate(cc: ControllerConfig | undefined): GateError | undefined {
  if (cc === undefined) return { kind: 'ControllerConfigMissing', name: ControllerConfigName };
  const generation = cc.metadata.generation ?? 0;
  const observed = cc.status?.observedGeneration ?? 0;
  if (generation !== observed)
    return {
      kind: 'StaleStatus',
      what: 'ControllerConfig',
      name: cc.metadata.name ?? '',
      observed,
      generation,
    };
  const completed = conditionTrue(cc, ControllerConfigConditionType.TemplateControllerCompleted);
  const running = conditionTrue(cc, ControllerConfigConditionType.TemplateControllerRunning);
  const failing = conditionTrue(cc, ControllerConfigConditionType.TemplateControllerFailing);
  if (completed && !running && !failing) return undefined;
  return { kind: 'ControllerConfigNotCompleted', completed, running, failing };
}

/** Selects the pool: a nil or empty selector selects no pool. */
function selectsPool(selector: LabelSelector | undefined, pool: MachineConfigPool): boolean {
  if (selector === undefined || isEmptySelector(selector)) return false;
  return matchesLabelSelector(selector, pool.metadata.labels ?? {});
}

type Generating = KubeletConfig | ContainerRuntimeConfig;

function generatorGate(
  what: 'KubeletConfig' | 'ContainerRuntimeConfig',
  cfg: Generating,
  successTypes: readonly string[],
): GateError | undefined {
  const name = cfg.metadata.name ?? '';
  const generation = cfg.metadata.generation ?? 0;
  const observed = cfg.status?.observedGeneration ?? 0;
  if (generation !== observed) return { kind: 'StaleStatus', what, name, observed, generation };
  const conditions = cfg.status?.conditions ?? [];
  const last = conditions[conditions.length - 1];
  if (last === undefined || !successTypes.includes(last.type) || last.status !== 'True')
    return { kind: 'NotCompleted', what, name };
  return undefined;
}

/** AreMCGeneratingSubControllersCompletedForPool. */
export function generatorsGate(
  pool: MachineConfigPool,
  kubeletConfigs: readonly KubeletConfig[],
  containerRuntimeConfigs: readonly ContainerRuntimeConfig[],
): GateError | undefined {
  for (const crc of containerRuntimeConfigs) {
    if (!selectsPool(crc.spec.machineConfigPoolSelector, pool)) continue;
    const e = generatorGate('ContainerRuntimeConfig', crc, [
      ContainerRuntimeConfigConditionType.Success,
    ]);
    if (e !== undefined) return e;
  }
  for (const kc of kubeletConfigs) {
    if (!selectsPool(kc.spec.machineConfigPoolSelector, pool)) continue;
    const e = generatorGate('KubeletConfig', kc, [
      KubeletConfigConditionType.Success,
      KubeletConfigConditionType.Accepted,
    ]);
    if (e !== undefined) return e;
  }
  return undefined;
}
