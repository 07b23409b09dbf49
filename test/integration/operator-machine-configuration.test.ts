/**
 * `mco operator` as a real process against a real `mco apiserver`: the MachineConfiguration step
 * (docs/reference/node-disruption.md §2–3). It creates MachineConfiguration/cluster by a
 * server-side apply when it is missing; writes the cluster defaults as the status's cluster
 * policies with observedGeneration; merges an administrator's policies (a default path replaced in
 * place, the rest appended) at the next generation; then writes nothing more; and a True
 * BootImageUpdateDegraded condition fails the step (ClusterOperator Degraded with upstream's
 * text) and stops the round there until it clears.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { ClusterOperator } from '../../src/api/config/v1/cluster-operator.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { MachineConfiguration } from '../../src/api/operator/v1/machine-configuration.js';
import { Resources } from '../../src/api/resource-refs.js';
import { defaultClusterPolicies } from '../../src/logic/nodeplan/node-disruption-policies.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { startApiServer, type ApiServerProcess } from '../e2e/apiserver-harness.js';
import { requireBuilt } from '../e2e/mcs-support.js';
import { McoProcess } from '../support/mco-processes.js';
import { until } from '../support/until.js';

const Namespace = 'openshift-machine-config-operator';
const Release = '4.17.0';

let api: ApiServerProcess;
let admin: ResourceClient;
let operator: McoProcess;

const get = () => admin.get<MachineConfiguration>(Resources.machineConfiguration, 'cluster');

/** The object once its status has observed its generation. */
function observed(minGeneration: number): Promise<MachineConfiguration> {
  return until(
    `MachineConfiguration/cluster observed at generation ≥ ${minGeneration}`,
    async () => {
      const m = await get().catch(() => undefined);
      const generation = m?.metadata.generation ?? 0;
      return m !== undefined &&
        generation >= minGeneration &&
        m.status?.observedGeneration === generation
        ? m
        : undefined;
    },
    60_000,
  );
}

beforeAll(async () => {
  requireBuilt();
  api = await startApiServer({ storage: 'memory' });
  admin = createKubeClient({ kubeconfigPath: api.kubeconfig('admin') });
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
    data: {
      baseOSContainerImage: 'quay.io/openshift/os@sha256:1111',
      baseOSExtensionsContainerImage: '',
      osImageURL: '',
      releaseVersion: Release,
    },
  };
  await admin.create(Resources.configMap, cm);
  operator = new McoProcess('operator', [
    'operator',
    '--kubeconfig',
    api.kubeconfig('operator'),
    '--release-version',
    Release,
    '--operator-image',
    'quay.io/openshift/mco:test',
    '--mcs-url',
    'https://api-int.example.com:22623',
    '--mcs-ca-file',
    `${api.dataDir}/ca.crt`,
    '--poll-interval',
    '200ms',
  ]);
}, 120_000);

afterAll(async () => {
  await operator?.stop('SIGKILL');
  await api?.dispose();
});

describe('the operator’s MachineConfiguration step', () => {
  it('creates MachineConfiguration/cluster and writes the default policies with observedGeneration', async () => {
    const m = await observed(1);
    expect(m.spec.managementState).toBe('Managed');
    expect(m.status?.nodeDisruptionPolicyStatus?.clusterPolicies).toEqual(defaultClusterPolicies);
  }, 90_000);

  it('merges the administrator’s policies at the next generation, then writes nothing more', async () => {
    const before = await observed(1);
    await admin.patch(
      Resources.machineConfiguration,
      'cluster',
      {
        spec: {
          nodeDisruptionPolicy: {
            files: [
              {
                path: '/etc/foo/foo.conf',
                actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
              },
              { path: '/etc/containers/policy.json', actions: [{ type: 'None' }] },
            ],
            units: [{ name: 'foo.service', actions: [{ type: 'DaemonReload' }] }],
          },
        },
      },
      'merge',
    );
    const m = await observed((before.metadata.generation ?? 1) + 1);
    const policies = m.status?.nodeDisruptionPolicyStatus?.clusterPolicies;
    const defaults = defaultClusterPolicies.files ?? [];
    expect(policies?.files?.map((f) => f.path)).toEqual([
      ...defaults.map((f) => f.path),
      '/etc/foo/foo.conf',
    ]);
    expect(policies?.files?.find((f) => f.path === '/etc/containers/policy.json')?.actions).toEqual(
      [{ type: 'None' }],
    );
    expect(policies?.units?.at(-1)).toEqual({
      name: 'foo.service',
      actions: [{ type: 'DaemonReload' }],
    });
    expect(policies?.sshkey).toEqual({ actions: [{ type: 'None' }] });

    const settled = m.metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 2000));
    expect((await get()).metadata.resourceVersion).toBe(settled);
  }, 90_000);

  it('a True BootImageUpdateDegraded fails the step until it clears', async () => {
    const m = await get();
    const condition = {
      type: 'BootImageUpdateDegraded',
      status: 'True' as const,
      reason: 'UpdateFailed',
      message: 'no boot image stream',
      lastTransitionTime: '2024-01-01T00:00:00Z',
    };
    await admin.updateStatus(Resources.machineConfiguration, {
      ...m,
      status: { ...m.status, conditions: [condition] },
    });
    const degraded = await until(
      'ClusterOperator machine-config Degraded by the MachineConfiguration step',
      async () => {
        const co = await admin
          .get<ClusterOperator>(Resources.clusterOperator, 'machine-config')
          .catch(() => undefined);
        const c = co?.status?.conditions?.find((x) => x.type === 'Degraded');
        return c?.status === 'True' && c.reason === 'MachineConfigurationFailed' ? c : undefined;
      },
      60_000,
    );
    expect(degraded.message).toContain('bootimage update failed: no boot image stream');
    // the condition stays as the boot-image controller wrote it
    expect((await get()).status?.conditions).toEqual([condition]);

    // while the step fails, the round stops there: the pools step does not recreate a deleted
    // pointer Secret
    const secret = 'worker-user-data-managed';
    const secretThere = () =>
      admin
        .get(Resources.secret, secret, 'openshift-machine-api')
        .then(() => true)
        .catch(() => false);
    await until(
      'the worker pointer Secret',
      async () => ((await secretThere()) ? true : undefined),
      60_000,
    );
    await admin.delete(Resources.secret, secret, 'openshift-machine-api');
    await new Promise((r) => setTimeout(r, 2000));
    expect(await secretThere()).toBe(false);

    const now = await get();
    await admin.updateStatus(Resources.machineConfiguration, {
      ...now,
      status: { ...now.status, conditions: [{ ...condition, status: 'False', reason: 'NA' }] },
    });
    // cleared: the rounds pass the step again and the pools step recreates it
    await until(
      'the worker pointer Secret recreated',
      async () => ((await secretThere()) ? true : undefined),
      60_000,
    );
  }, 120_000);
});
