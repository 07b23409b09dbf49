/**
 * The built-in pools upstream ships (`manifests/{master,worker,arbiter}.machineconfigpool.yaml`):
 * labels and selectors exactly as upstream; the spec beyond the selectors is the user's.
 */
import { Label } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';

export const BuiltInPoolNames = ['master', 'worker', 'arbiter'] as const;
export type BuiltInPoolName = (typeof BuiltInPoolNames)[number];

export function isBuiltInPoolName(name: string): name is BuiltInPoolName {
  return (BuiltInPoolNames as readonly string[]).includes(name);
}

/** The pool upstream creates under `name`; master and arbiter gate upgrades. */
export function builtInPool(name: BuiltInPoolName): MachineConfigPool {
  const labels: Record<string, string> = {
    [Label.mcoBuiltIn]: '',
    [`pools.operator.machineconfiguration.openshift.io/${name}`]: '',
  };
  if (name !== 'worker') labels[Label.requiredForUpgrade] = '';
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name, labels },
    spec: {
      machineConfigSelector: { matchLabels: { [Label.role]: name } },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    },
  };
}
