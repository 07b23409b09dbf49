/**
 * A 3-member etcd cluster for tests: members on free 127.0.0.1 ports in a temp dir, started and
 * stopped by PID (SIGTERM waiting for the exit, SIGKILL fallback), crashable and restartable on
 * their data dirs. `dispose()` stops everything and removes the data dirs (about 80 MB each, WAL
 * preallocation); a process-exit hook SIGKILLs members a crashed test left behind.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EtcdBinary,
  EtcdClusterProcesses,
  type EtcdMember,
} from '../../src/adapters/etcd-cluster-process.js';

const live = new Set<EtcdClusterProcesses>();
let hooked = false;

/** Whether /usr/bin/etcd (Debian's etcd-server) is installed. */
export function hasEtcd(): boolean {
  return existsSync(EtcdBinary);
}

export class TestEtcdCluster {
  readonly dir: string;
  readonly processes: EtcdClusterProcesses;

  private constructor(dir: string, processes: EtcdClusterProcesses) {
    this.dir = dir;
    this.processes = processes;
  }

  /** Starts `size` members (default 3) and waits until the cluster is healthy. */
  static async start(size = 3): Promise<TestEtcdCluster> {
    if (!hooked) {
      hooked = true;
      process.once('exit', () => {
        for (const c of live) c.killNow();
      });
    }
    const dir = mkdtempSync(join(tmpdir(), 'mco-etcd-'));
    const processes = await EtcdClusterProcesses.start({ dir, size });
    live.add(processes);
    const cluster = new TestEtcdCluster(dir, processes);
    try {
      await processes.waitHealthy();
    } catch (e) {
      const logs = cluster.logs();
      await cluster.dispose();
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n${logs}`, { cause: e });
    }
    return cluster;
  }

  get endpoints(): string[] {
    return this.processes.endpoints;
  }

  member(i: number): EtcdMember {
    return this.processes.member(i);
  }

  /** The last lines of every member's log, for failure messages. */
  logs(lines = 20): string {
    return this.processes.members
      .map((m) => {
        const text = existsSync(m.config.logFile) ? readFileSync(m.config.logFile, 'utf8') : '';
        return `--- ${m.config.name}\n${text.split('\n').slice(-lines).join('\n')}`;
      })
      .join('\n');
  }

  /** Restarts a stopped member on its data dir and waits until it is healthy. */
  async restart(i: number, timeoutMs = 60_000): Promise<void> {
    const m = this.member(i);
    m.start();
    const deadline = Date.now() + timeoutMs;
    while (!(await m.healthy())) {
      if (!m.running) throw new Error(`${m.config.name} exited:\n${this.logs()}`);
      if (Date.now() > deadline) throw new Error(`${m.config.name} not healthy:\n${this.logs()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async dispose(): Promise<void> {
    await this.processes.stop();
    live.delete(this.processes);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
