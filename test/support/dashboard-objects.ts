/**
 * Builders for the dashboard's tests: pools, nodes, MachineConfigNodes and MachineConfigs with just
 * the fields the dashboard reads.
 */
import type { Node } from '../../src/api/core/v1/node.js';
import type { Condition } from '../../src/api/meta/v1/condition.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../../src/api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';

export interface PoolParts {
  readonly target?: string;
  readonly current?: string;
  readonly machineCount?: number;
  readonly updated?: number;
  readonly degraded?: number;
  readonly unavailable?: number;
  readonly conditions?: Readonly<
    Record<string, string | { status: string; reason?: string; message?: string }>
  >;
  readonly paused?: boolean;
  readonly generation?: number;
  readonly observedGeneration?: number;
}

export function pool(name: string, parts: PoolParts = {}): MachineConfigPool {
  const machineCount = parts.machineCount ?? 0;
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name, generation: parts.generation ?? 1 },
    spec: {
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
      machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': name } },
      ...(parts.paused === undefined ? {} : { paused: parts.paused }),
      ...(parts.target === undefined ? {} : { configuration: { name: parts.target } }),
    },
    status: {
      observedGeneration: parts.observedGeneration ?? parts.generation ?? 1,
      ...(parts.current === undefined ? {} : { configuration: { name: parts.current } }),
      machineCount,
      updatedMachineCount: parts.updated ?? 0,
      readyMachineCount: parts.updated ?? 0,
      unavailableMachineCount: parts.unavailable ?? 0,
      degradedMachineCount: parts.degraded ?? 0,
      conditions: Object.entries(parts.conditions ?? {}).map(([type, c]) => ({
        type,
        ...(typeof c === 'string' ? { status: c, reason: '', message: '' } : c),
        lastTransitionTime: '2026-01-01T00:00:00Z',
      })),
    },
  };
}

export interface NodeParts {
  readonly role?: string;
  readonly current?: string;
  readonly desired?: string;
  readonly state?: string;
  readonly reason?: string;
  readonly ready?: boolean;
  readonly unschedulable?: boolean;
}

export function node(name: string, parts: NodeParts = {}): Node {
  const annotations: Record<string, string> = {};
  if (parts.current !== undefined) annotations[Annotation.currentConfig] = parts.current;
  if (parts.desired !== undefined) annotations[Annotation.desiredConfig] = parts.desired;
  if (parts.state !== undefined) annotations[Annotation.state] = parts.state;
  if (parts.reason !== undefined) annotations[Annotation.reason] = parts.reason;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { [`node-role.kubernetes.io/${parts.role ?? 'worker'}`]: '' },
      annotations,
    },
    spec: parts.unschedulable === true ? { unschedulable: true } : {},
    status: {
      conditions: [{ type: 'Ready', status: parts.ready === false ? 'False' : 'True' }],
    },
  };
}

/** A MachineConfigNode with the given conditions (type → status, or status + message). */
export function mcn(
  name: string,
  conditions: Readonly<Record<string, string | { status: string; message: string }>>,
): MachineConfigNode {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigNode',
    metadata: { name },
    spec: { node: { name }, pool: { name: 'worker' }, configVersion: { desired: 'x' } },
    status: {
      conditions: Object.entries(conditions).map(([type, c]): Condition => ({
        type,
        status: (typeof c === 'string' ? c : c.status) as Condition['status'],
        reason: type,
        message: typeof c === 'string' ? `${type} ${c}` : c.message,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      })),
    },
  };
}

export interface ConfigParts {
  readonly files?: Readonly<Record<string, string>>;
  readonly units?: readonly {
    name: string;
    contents?: string;
    enabled?: boolean;
    mask?: boolean;
    dropins?: { name: string; contents: string }[];
  }[];
  readonly osImageURL?: string;
  readonly kernelArguments?: readonly string[];
  readonly pool?: string;
  readonly created?: string;
}

export function machineConfig(name: string, parts: ConfigParts = {}): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name,
      ...(parts.created === undefined ? {} : { creationTimestamp: parts.created }),
      ...(parts.pool === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'machineconfiguration.openshift.io/v1',
                kind: 'MachineConfigPool',
                name: parts.pool,
                uid: `uid-${parts.pool}`,
                controller: true,
              },
            ],
          }),
    },
    spec: {
      ...(parts.osImageURL === undefined ? {} : { osImageURL: parts.osImageURL }),
      ...(parts.kernelArguments === undefined
        ? {}
        : { kernelArguments: [...parts.kernelArguments] }),
      config: {
        ignition: { version: '3.5.0' },
        storage: {
          files: Object.entries(parts.files ?? {}).map(([path, text]) => ({
            path,
            mode: 0o644,
            contents: { source: `data:,${encodeURIComponent(text)}` },
          })),
        },
        systemd: { units: (parts.units ?? []).map((u) => ({ ...u })) },
      },
    },
  };
}
