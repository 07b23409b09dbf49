/**
 * The cluster's inputs to a render and a node's plan (logic/nodeplan/pool-change.ts), read from
 * the API server (GETs and LISTs only) or from a file a user exported with `kubectl get
 * machineconfigs,machineconfigpools,controllerconfigs,machineconfigurations -o yaml`; and the
 * MachineConfigs and pools of the change files. `mco rollout preview` and `mco render
 * --from-cluster` / `--cluster-inputs` read through here, so they plan with the same objects.
 */
import { ControllerConfigName } from '../api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import {
  MachineConfigurationName,
  type MachineConfiguration,
} from '../api/operator/v1/machine-configuration.js';
import { Resources } from '../api/resource-refs.js';
import type { ManifestObject } from '../lib/manifests.js';
import type { ClusterInputs } from '../logic/nodeplan/pool-change.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { CliError } from '../shell/cli-io.js';
import { loadManifests } from '../shell/load-manifests.js';

/** The command that writes a file `--cluster-inputs` reads. */
export const ExportCommand =
  'kubectl get machineconfigs,machineconfigpools,controllerconfigs,machineconfigurations -o yaml';

async function getOrUndefined<T extends ApiObject>(
  client: ResourceClient,
  ref: ResourceRef,
  name: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(ref, name);
  } catch (e) {
    if (isStatusError(e, 'NotFound') || isStatusError(e, 'Forbidden')) return undefined;
    throw e;
  }
}

/** The pools, every MachineConfig, the ControllerConfig and MachineConfiguration/cluster. */
export async function readClusterInputs(client: ResourceClient): Promise<ClusterInputs> {
  const [pools, configs, controllerConfig, machineConfiguration] = await Promise.all([
    client.list<MachineConfigPool>(Resources.machineConfigPool),
    client.list<MachineConfig>(Resources.machineConfig),
    getOrUndefined<ControllerConfig>(client, Resources.controllerConfig, ControllerConfigName),
    getOrUndefined<MachineConfiguration>(
      client,
      Resources.machineConfiguration,
      MachineConfigurationName,
    ),
  ]);
  return { pools: pools.items, configs: configs.items, controllerConfig, machineConfiguration };
}

function ofKind<T>(objects: readonly ManifestObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as unknown as T[];
}

/** The same objects from an exported file: what the API server would have answered. */
export function clusterInputsFromFile(file: string): ClusterInputs {
  const objects = loadManifests([file]);
  const pools = ofKind<MachineConfigPool>(objects, 'MachineConfigPool');
  const configs = ofKind<MachineConfig>(objects, 'MachineConfig');
  if (pools.length === 0 || configs.length === 0)
    throw new CliError(
      `${file} holds no ${pools.length === 0 ? 'MachineConfigPool' : 'MachineConfig'}: export the cluster's inputs with \`${ExportCommand}\``,
    );
  const named = <T extends { metadata: { name?: string } }>(xs: T[], name: string) =>
    xs.find((x) => x.metadata.name === name);
  const machineConfiguration = named(
    ofKind<MachineConfiguration>(objects, 'MachineConfiguration'),
    MachineConfigurationName,
  );
  return {
    pools,
    configs,
    controllerConfig: named(
      ofKind<ControllerConfig>(objects, 'ControllerConfig'),
      ControllerConfigName,
    ),
    machineConfiguration:
      machineConfiguration === undefined
        ? undefined
        : {
            ...machineConfiguration,
            spec: machineConfiguration.spec ?? { managementState: 'Managed' },
          },
  };
}

/** What the files hold that is applied, and a note for each object skipped. */
export interface AppliedObjects {
  readonly configs: readonly MachineConfig[];
  readonly pools: readonly MachineConfigPool[];
  readonly skipped: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Sorts the files' objects into MachineConfigs and pools. A pool that cannot be applied (no
 * name, no spec) is an error, as kubectl would refuse it: planning without it would answer for
 * a different change. Any other kind is skipped with a note naming `command`.
 */
export function sortApplied(
  objects: readonly ManifestObject[],
  command = 'rollout preview',
): AppliedObjects {
  const configs: MachineConfig[] = [];
  const pools: MachineConfigPool[] = [];
  const skipped: string[] = [];
  for (const o of objects) {
    const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
    if (o.kind === 'MachineConfig') configs.push(o as unknown as MachineConfig);
    else if (o.kind === 'MachineConfigPool') {
      if (name === '') throw new CliError('a MachineConfigPool in the files has no metadata.name');
      if (!isObject(o['spec']))
        throw new CliError(`MachineConfigPool ${name} in the files has no spec`);
      pools.push(o as unknown as MachineConfigPool);
    } else
      skipped.push(
        `skipped ${typeof o.kind === 'string' && o.kind !== '' ? o.kind : 'an object with no kind'}${name === '' ? '' : ` ${name}`}: ${command} applies MachineConfigs and MachineConfigPools only`,
      );
  }
  return { configs, pools, skipped };
}
