/**
 * Where the cluster in a box keeps things in its data folder (`mco start --data-dir`, `.mco/` by
 * default), shared by `mco start`, `mco logs` and the tests:
 *
 * ```
 * DIR/admin.kubeconfig       the admin identity (`export KUBECONFIG=DIR/admin.kubeconfig`)
 * DIR/cluster.json           what was started: masters, workers, port base
 * DIR/start.lock             the PID of the `mco start` running the cluster (one per folder)
 * DIR/pids.json              every child process `mco start` runs (a later start stops leftovers)
 * DIR/apiserver/             the API server's data folder (SQLite state, PKI, tokens, kubeconfigs)
 * DIR/mcs/                   the MCS's first CA and certificate, their projected successors, tokens
 * DIR/images/repo/           the OSTree repository holding the boot image
 * DIR/pointer/<pool>.ign     the pointer Ignition config nodes of that pool are provisioned with
 * DIR/nodes/<name>/          a simulated node (its root, sysroot, `daemon.log`)
 * DIR/logs/<component>.log   each control plane process's log (pino JSON lines)
 * ```
 */
import { join, resolve } from 'node:path';

export const DefaultDataDir = '.mco';

export interface ClusterLayout {
  readonly dir: string;
  readonly adminKubeconfig: string;
  readonly clusterFile: string;
  readonly pidsFile: string;
  readonly startLock: string;
  readonly apiserverDir: string;
  readonly mcsDir: string;
  readonly bootstrapTokenDir: string;
  readonly imageRepo: string;
  readonly pointerDir: string;
  readonly nodesDir: string;
  readonly logsDir: string;
  nodeDir(name: string): string;
  /** The node's daemon log, as `oc logs` on the daemon pod shows upstream. */
  daemonLog(name: string): string;
  log(component: string): string;
  pointerConfig(pool: string): string;
  /** On-Cluster Layering build logs, one `<machineosbuild>.log` each. */
  readonly buildLogsDir: string;
}

export function clusterLayout(dataDir: string): ClusterLayout {
  const dir = resolve(dataDir);
  const nodesDir = join(dir, 'nodes');
  const logsDir = join(dir, 'logs');
  const pointerDir = join(dir, 'pointer');
  const mcsDir = join(dir, 'mcs');
  return {
    dir,
    adminKubeconfig: join(dir, 'admin.kubeconfig'),
    clusterFile: join(dir, 'cluster.json'),
    pidsFile: join(dir, 'pids.json'),
    startLock: join(dir, 'start.lock'),
    apiserverDir: join(dir, 'apiserver'),
    mcsDir,
    bootstrapTokenDir: join(mcsDir, 'bootstrap-token'),
    imageRepo: join(dir, 'images', 'repo'),
    pointerDir,
    nodesDir,
    logsDir,
    nodeDir: (name) => join(nodesDir, name),
    daemonLog: (name) => join(nodesDir, name, 'daemon.log'),
    log: (component) => join(logsDir, `${component}.log`),
    pointerConfig: (pool) => join(pointerDir, `${pool}.ign`),
    buildLogsDir: join(dir, 'builds', 'logs'),
  };
}
