/**
 * A node added to a running `mco start` box from outside, the way the box makes its own (docs/box.md
 * "How nodes join"): its Machine first (so its CSR is approved and its Node gets the role), then
 * `mco node create` from the box's boot image, provisioned by Ignition from the pool's pointer
 * config as the box keeps it in DIR/pointer/ (rewritten when the MCS CA bundle changes), with the
 * machine-config-daemon ServiceAccount's kubeconfig for its daemon; then `mco node run`. The box
 * does not supervise it: the test stops it by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { ensureMachine } from '../../src/box/box-machines.js';
import { clusterLayout } from '../../src/box/cluster-layout.js';
import { BootRef } from '../../src/box/start-cluster-objects.js';
import { McoBin } from './run-mco.js';

export interface BoxNode {
  readonly name: string;
  readonly dir: string;
  /** The `mco node create` log. */
  readonly createLog: string;
  /** Stops its supervisor (SIGTERM to its PID, SIGKILL to its group after a grace period). */
  stop(): Promise<void>;
}

function run(args: readonly string[], log: string): ChildProcess {
  const fd = openSync(log, 'a');
  const child = spawn(process.execPath, [McoBin, ...args], {
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  return child;
}

/** Creates `name` in `pool` of the box in `dataDir` and boots it; resolves once it is booting. */
export async function addBoxNode(
  dataDir: string,
  node: { readonly name: string; readonly pool: 'worker' | 'master'; readonly zone: string },
): Promise<BoxNode> {
  const layout = clusterLayout(dataDir);
  const record = JSON.parse(readFileSync(layout.clusterFile, 'utf8')) as { bootImage: string };
  const admin = createKubeClient({ kubeconfigPath: layout.adminKubeconfig });
  await ensureMachine(admin, { name: node.name, role: node.pool, zone: node.zone });
  const dir = layout.nodeDir(node.name);
  const createLog = layout.log(`create-${node.name}`);
  const create = run(
    [
      'node',
      'create',
      '--dir',
      dir,
      '--name',
      node.name,
      '--boot-repo',
      layout.imageRepo,
      '--ref',
      BootRef,
      '--boot-image',
      record.bootImage,
      '--zone',
      node.zone,
      '--kubeconfig',
      layout.adminKubeconfig,
      '--pointer-config',
      layout.pointerConfig(node.pool),
      '--daemon-kubeconfig',
      join(layout.apiserverDir, 'daemon.kubeconfig'),
      '--firstboot-command',
      JSON.stringify([
        process.execPath,
        McoBin,
        'firstboot-complete-machineconfig',
        '--root',
        '{root}',
        '--host',
        'ostree',
      ]),
    ],
    createLog,
  );
  const code = await new Promise<number | null>((resolve) => create.once('exit', resolve));
  if (code !== 0)
    throw new Error(
      `mco node create ${node.name} exited ${String(code)}: ${readFileSync(createLog, 'utf8').slice(-3000)}`,
    );
  const supervisor = run(['node', 'run', '--dir', dir], layout.log(`node-${node.name}`));
  const exited = new Promise<void>((resolve) => {
    supervisor.once('exit', () => {
      resolve();
    });
  });
  return {
    name: node.name,
    dir,
    createLog,
    stop: async () => {
      if (supervisor.exitCode !== null || supervisor.pid === undefined) return;
      const pid = supervisor.pid;
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
