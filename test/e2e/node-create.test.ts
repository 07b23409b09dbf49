/**
 * A node made with `mco node create` outside `mco start`, against `mco apiserver` with RBAC from
 * deploy/: given `--daemon-kubeconfig` (the machine-config-daemon ServiceAccount's), its default
 * daemon reads MachineConfigs, pools and the ControllerConfig as that ServiceAccount and writes
 * its Node as the kubelet, and the node reaches Done with nothing Degraded. The node identity
 * alone may read none of those.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonState } from '../../src/api/machineconfiguration/v1/constants.js';
import type { NodeDefinition } from '../../src/ports/node-machine.js';
import { KubeletKubeconfigPath } from '../../src/simulator/kubelet-credentials.js';
import { DaemonCluster, type SimNode } from './daemon-harness.js';
import { McoBin } from './mcs-support.js';

let cluster: DaemonCluster;
let node: SimNode;

beforeAll(async () => {
  cluster = await DaemonCluster.start({ nodes: 1, defaultDaemon: true });
  const first = cluster.nodes[0];
  if (first === undefined) throw new Error('no node');
  node = first;
}, 600_000);

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when start failed
  await cluster?.dispose();
}, 120_000);

describe('mco node create --daemon-kubeconfig', () => {
  it('records the daemon kubeconfig in the node definition, with no command line of its own', () => {
    const def = JSON.parse(readFileSync(join(node.dir, 'node.json'), 'utf8')) as NodeDefinition;
    expect(def.daemonKubeconfig).toBe(cluster.api.kubeconfig('daemon'));
    expect(def.daemonCommand).toBeUndefined();
  });

  it('runs the default daemon reading as machine-config-daemon and writing as the kubelet', () => {
    const started = node.supervisorLog.split('\n').find((l) => l.includes('"daemon started"'));
    expect(started, node.supervisorLog.slice(-4000)).toBeDefined();
    const argv = (JSON.parse(started ?? '{}') as { argv?: string[] }).argv ?? [];
    const at = (flag: string) => argv[argv.indexOf(flag) + 1];
    expect(argv).toContain('daemon');
    expect(at('--kubeconfig')).toBe(cluster.api.kubeconfig('daemon'));
    expect(at('--node-kubeconfig')).toBe(KubeletKubeconfigPath);
  });

  it('brings the node to Done with nothing Degraded', async () => {
    const state = await cluster.state(node.name);
    expect(state.state, cluster.diagnostics()).toBe(DaemonState.Done);
    expect(state.reason ?? '').toBe('');
    const pool = await cluster.getPool('worker');
    expect(state.current).toBe(pool.status?.configuration?.name);
    expect(pool.status?.degradedMachineCount).toBe(0);
    for (const type of ['Degraded', 'NodeDegraded'])
      expect(pool.status?.conditions?.find((c) => c.type === type)?.status).toBe('False');
    expect(cluster.daemonLog(node)).not.toMatch(/forbidden/i);
  });

  it('refuses it with --node-kubeconfig, whose identity is not on the node', () => {
    const r = spawnSync(
      process.execPath,
      [
        McoBin,
        'node',
        'create',
        '--dir',
        join(cluster.work.path, 'refused'),
        '--name',
        'refused',
        '--boot-repo',
        cluster.repo,
        '--ref',
        'testos/x86_64/stable',
        '--node-kubeconfig',
        cluster.api.kubeconfig('admin'),
        '--daemon-kubeconfig',
        cluster.api.kubeconfig('daemon'),
      ],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('cannot be combined with --node-kubeconfig');
  });
});
