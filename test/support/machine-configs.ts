/**
 * Builders for MachineConfigs, pools and ControllerConfigs in tests, named after upstream's
 * fixtures: `mc(name, role, spec)` is "MC(name, role, …)" of docs/reference/vectors.md.
 */
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import type {
  MachineConfig,
  MachineConfigSpec,
} from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { GeneratedSpecVersion } from '../../src/ignition/versions.js';

const RoleLabel = 'machineconfiguration.openshift.io/role';

export function mc(
  name: string,
  role: string | undefined,
  spec: MachineConfigSpec = {},
  annotations?: Record<string, string>,
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name,
      ...(role === undefined ? {} : { labels: { [RoleLabel]: role } }),
      ...(annotations === undefined ? {} : { annotations }),
    },
    spec,
  };
}

/** An Ignition 3.5 config with the given sections. */
export function ign(
  sections: Record<string, unknown> = {},
  version: string = GeneratedSpecVersion,
): Record<string, unknown> {
  return { ignition: { version }, ...sections };
}

export function pool(name: string, roles: readonly string[] = [name]): MachineConfigPool {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name },
    spec: {
      machineConfigSelector:
        roles.length === 1
          ? { matchLabels: { [RoleLabel]: roles[0] ?? name } }
          : { matchExpressions: [{ key: RoleLabel, operator: 'In', values: [...roles] }] },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    },
  };
}

export function controllerConfig(
  baseOSContainerImage: string,
  baseOSExtensionsContainerImage = '',
): ControllerConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller' },
    spec: { baseOSContainerImage, baseOSExtensionsContainerImage },
  } as ControllerConfig;
}
