/**
 * A control plane of real processes (`mco apiserver` on memory storage, `mco operator`, `mco
 * controller`, each quick to react) whose nodes are in-process daemons (node-agents.ts): for
 * tests of how a pool rolls out many nodes, where a box's OSTree nodes would cost minutes each.
 */
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { startApiServer, type ApiServerProcess } from '../e2e/apiserver-harness.js';
import { McoProcess } from './mco-processes.js';
import { NodeAgents } from './node-agents.js';
import { until } from './until.js';

const Namespace = 'openshift-machine-config-operator';
const Release = '4.17.0';
const OsImage = 'quay.io/openshift/os@sha256:1111';

export interface AgentCluster {
  readonly api: ApiServerProcess;
  readonly admin: ResourceClient;
  readonly agents: NodeAgents;
  /** The worker pool's rendered config the nodes booted with. */
  readonly workerConfig: string;
  stop(): Promise<void>;
}

const pool = (admin: ResourceClient, name: string) =>
  admin.get<MachineConfigPool>(Resources.machineConfigPool, name).catch(() => undefined);

/** The control plane, one master and `workers` workers, each update taking `applyMs`. */
export async function startAgentCluster(o: {
  readonly workers: number;
  readonly applyMs: number;
}): Promise<AgentCluster> {
  const api = await startApiServer({ storage: 'memory' });
  const admin = createKubeClient({ kubeconfigPath: api.kubeconfig('admin') });
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
    data: {
      baseOSContainerImage: OsImage,
      baseOSExtensionsContainerImage: `${OsImage}-extensions`,
      osImageURL: '',
      releaseVersion: Release,
    },
  };
  await admin.create(Resources.configMap, cm);
  const operator = new McoProcess('operator', [
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
  const controller = new McoProcess('controller', [
    'controller',
    '--kubeconfig',
    api.kubeconfig('controller'),
    '--render-delay',
    '200ms',
    '--node-update-delay',
    '0s',
    '--drain-update-delay',
    '0s',
  ]);
  const rendered = await until(
    'the pools to render',
    async () => {
      const m = (await pool(admin, 'master'))?.spec.configuration?.name ?? '';
      const w = (await pool(admin, 'worker'))?.spec.configuration?.name ?? '';
      return m !== '' && w !== '' ? { m, w } : undefined;
    },
    8 * 60_000,
  );
  const agents = new NodeAgents({ client: admin, applyMs: o.applyMs });
  await agents.add([
    { name: 'master-0', role: 'master', config: rendered.m, zone: 'zone-a' },
    ...Array.from({ length: o.workers }, (_, i) => ({
      name: `worker-${String(i)}`,
      role: 'worker',
      config: rendered.w,
      zone: `zone-${'abc'[i % 3] ?? 'a'}`,
    })),
  ]);
  return {
    api,
    admin,
    agents,
    workerConfig: rendered.w,
    async stop() {
      await agents.stop();
      await controller.stop('SIGKILL');
      await operator.stop('SIGKILL');
      await api.dispose();
    },
  };
}
