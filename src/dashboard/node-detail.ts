/**
 * One node as the node detail shows it: what the kubelet reports of its OS (nodeInfo), the
 * daemon's annotations (state, reason, current and desired config), the kernel arguments and OS
 * image of the current and desired rendered configs, and every MachineConfigNode condition, all
 * from the watched objects. The deployments (node-deployments.ts) and the daemon's log
 * (api-server-access.ts) are fetched beside it.
 */
import type { Node } from '../api/core/v1/node.js';
import { Annotation } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { poolsForNode } from '../logic/rollout/pool-membership.js';
import type { ConditionView } from './dashboard-snapshot.js';
import type { NodeDeployments } from '../ports/node-deployments-source.js';

interface NodeOsView {
  readonly osImage: string;
  readonly kernelVersion: string;
  readonly bootID: string;
  readonly kubeletVersion: string;
  readonly containerRuntimeVersion: string;
}

/** What one rendered config asks of the node's OS. */
export interface ConfigOsView {
  readonly name: string;
  /** false when the config is not (or no longer) there. */
  readonly found: boolean;
  readonly osImageURL: string;
  readonly kernelArguments: readonly string[];
  readonly kernelType: string;
  readonly extensions: readonly string[];
  readonly fips: boolean;
}

export interface NodeDetail {
  readonly name: string;
  readonly pool: string;
  readonly os: NodeOsView;
  readonly state: string;
  readonly reason: string;
  readonly current: ConfigOsView;
  readonly desired: ConfigOsView;
  /** The MachineConfigNode's conditions as it lists them ([] when it has none yet). */
  readonly conditions: readonly ConditionView[];
  /** The deployments, or why the dashboard cannot show them. */
  readonly deployments:
    | { readonly ok: true; readonly value: NodeDeployments }
    | { readonly ok: false; readonly error: string };
}

export interface NodeDetailInputs {
  readonly node: Node;
  readonly pools: readonly MachineConfigPool[];
  readonly machineConfigNode: MachineConfigNode | undefined;
  readonly machineConfig: (name: string) => MachineConfig | undefined;
  readonly deployments: NodeDetail['deployments'];
}

function configOs(name: string, mc: MachineConfig | undefined): ConfigOsView {
  const spec = mc?.spec;
  return {
    name,
    found: mc !== undefined,
    osImageURL: spec?.osImageURL ?? '',
    kernelArguments: spec?.kernelArguments ?? [],
    kernelType: spec?.kernelType ?? 'default',
    extensions: spec?.extensions ?? [],
    fips: spec?.fips === true,
  };
}

export function nodeDetail(inputs: NodeDetailInputs): NodeDetail {
  const { node } = inputs;
  const a = node.metadata.annotations ?? {};
  const info = node.status?.nodeInfo;
  const membership = poolsForNode(inputs.pools, node);
  const current = a[Annotation.currentConfig] ?? '';
  const desired = a[Annotation.desiredConfig] ?? '';
  return {
    name: node.metadata.name ?? '',
    pool: membership.ok ? (membership.value[0]?.metadata.name ?? '') : '',
    os: {
      osImage: info?.osImage ?? '',
      kernelVersion: info?.kernelVersion ?? '',
      bootID: info?.bootID ?? '',
      kubeletVersion: info?.kubeletVersion ?? '',
      containerRuntimeVersion: info?.containerRuntimeVersion ?? '',
    },
    state: a[Annotation.state] ?? '',
    reason: a[Annotation.reason] ?? '',
    current: configOs(current, inputs.machineConfig(current)),
    desired: configOs(desired, inputs.machineConfig(desired)),
    conditions: (inputs.machineConfigNode?.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: c.lastTransitionTime,
    })),
    deployments: inputs.deployments,
  };
}
