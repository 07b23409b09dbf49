/**
 * The daemon's crash drill: real `mco apiserver`, `mco operator`, `mco controller`,
 * `mco server` and three simulated nodes whose daemons (`mco daemon --host ostree`, run by the
 * node supervisor, which restarts a daemon that dies) are killed with SIGKILL at 36 distinct points
 * of an update: the state and drain requests, the journal's phases, before and after file, unit
 * and dropin writes, stale-file removal, the SSH keys, the OS staging (kernel arguments), the
 * currentconfig, the reboot request, and after the reboot the validation, the uncordon and Done.
 *
 * Four rounds, each one MachineConfig change (files, a unit with a dropin, an SSH key, a kernel
 * argument, a file of the previous round left stale) rolled out to all three nodes at once. In a
 * round each node's daemon dies at three points, one after another (each restart resumes the
 * update and then dies at the next point): MCO_DAEMON_CRASH_AT=@<file> arms the running daemon,
 * MCO_DAEMON_CRASH_STAMPS makes each point fire once. After every round every node is Done on the
 * new config, never Degraded meanwhile, every one of its points fired, and the disk is exactly the
 * new config: files, modes, the stale file gone, no temp files, the unit and its link, the SSH
 * keys, the kernel argument of the booted deployment, currentconfig, no journal, and the daemon's
 * own on-disk validation passing.
 */
import {
  existsSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecCommandRunner } from '../../src/adapters/exec-command-runner.js';
import { createOstreeHost } from '../../src/adapters/ostree-host.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../../src/api/resource-refs.js';
import { checkOnDiskState } from '../../src/daemon/on-disk-state.js';
import { parseNodeConfig } from '../../src/logic/nodeplan/node-config.js';
import { describeOnDiskValidationFailure } from '../../src/logic/nodeplan/on-disk-validation.js';
import { DaemonCluster, Minute, sleep, type SimNode } from './daemon-harness.js';

/** In the order an update reaches them (`step:n` = the n-th time in one daemon process). */
const Points = [
  'set-working',
  'prepared',
  'request-drain',
  'drained',
  'journal-prepare',
  'prior-captured',
  'journal-files',
  'write-file:1',
  'file-written:1',
  'write-file:2',
  'file-written:2',
  'write-file:4',
  'file-written:4',
  'write-file:7',
  'file-written:7',
  'write-file:9',
  'file-written:9',
  'write-unit:1',
  'unit-written:1',
  'enable-units',
  'remove-stale',
  'journal-users',
  'write-ssh-keys',
  'journal-os',
  'os-cleanup',
  'update-kargs',
  'kargs-updated',
  'journal-commit',
  'current-config-written',
  'committed',
  'reboot-marked',
  'post-config-action',
  'reboot-requested',
  'validate',
  'uncordon',
  'set-done',
] as const;
const Rounds = 4;
const NodeCount = 3;
/** Chain k (round ⌊k/3⌋, node k mod 3): an early, a middle and a late point, in update order. */
const chain = (k: number): string[] => [Points[k]!, Points[k + 12]!, Points[k + 24]!];

const Unit = [
  '[Unit]',
  'Description=mco daemon crash drill',
  '',
  '[Service]',
  'Type=oneshot',
  'ExecStart=/usr/bin/true',
  '',
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');
const dropin = (r: number): string => `[Service]\nEnvironment=DRILL_ROUND=${String(r)}\n`;
const key = (r: number): string =>
  `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDrillRound${String(r)} core@drill`;
const crashFile = (n: SimNode): string => join(n.dir, 'crash-at');
const stampsDir = (n: SimNode): string => join(n.dir, 'crash-stamps');

let cluster: DaemonCluster;

beforeAll(async () => {
  cluster = await DaemonCluster.start({
    nodes: NodeCount,
    maxUnavailable: NodeCount,
    pods: 1,
    nodeEnv: (_i, dir) => ({
      MCO_DAEMON_CRASH_AT: `@${join(dir, 'crash-at')}`,
      MCO_DAEMON_CRASH_STAMPS: join(dir, 'crash-stamps'),
    }),
  });
}, 12 * Minute);

afterAll(async () => {
  await cluster?.dispose();
}, 3 * Minute);

function bootedKargs(n: SimNode): string[] {
  return (
    JSON.parse(readFileSync(join(n.dir, 'state/booted.json'), 'utf8')) as {
      kernelArguments: string[];
    }
  ).kernelArguments;
}

async function checkDisk(n: SimNode, r: number, target: string): Promise<void> {
  const root = n.root;
  const at = (p: string): string => join(root, p);
  expect(readFileSync(at('etc/mco-drill/app.conf'), 'utf8'), n.name).toBe(`round ${String(r)}\n`);
  expect(statSync(at('etc/mco-drill/app.conf')).mode & 0o7777).toBe(0o640);
  expect(readFileSync(at(`etc/mco-drill/round-${String(r)}.conf`), 'utf8')).toBe(`${String(r)}\n`);
  // only this round's files: the previous round's file was removed as stale, with its stamp
  expect(
    readdirSync(at('etc/mco-drill'))
      .filter((f) => !/\.mcd(no)?orig$/.test(f))
      .sort(),
    n.name,
  ).toEqual(['app.conf', `round-${String(r)}.conf`]);
  expect(existsSync(at(`etc/mco-drill/round-${String(r - 1)}.conf.mcdnoorig`))).toBe(false);
  for (const dir of ['etc/mco-drill', 'etc/systemd/system', 'etc/machine-config-daemon'])
    expect(
      readdirSync(at(dir)).filter((f) => f.endsWith('.tmp')),
      `${n.name} temp files in /${dir}`,
    ).toEqual([]);
  expect(readFileSync(at('etc/systemd/system/mco-drill.service'), 'utf8')).toBe(Unit);
  expect(readFileSync(at('etc/systemd/system/mco-drill.service.d/10-round.conf'), 'utf8')).toBe(
    dropin(r),
  );
  expect(readlinkSync(at('etc/systemd/system/multi-user.target.wants/mco-drill.service'))).toBe(
    '/etc/systemd/system/mco-drill.service',
  );
  const keys = readFileSync(at('home/core/.ssh/authorized_keys.d/ignition'), 'utf8');
  expect(keys).toContain(key(r));
  expect(keys).not.toContain(key(r - 1));
  expect(
    bootedKargs(n).filter((a) => a.startsWith('mco.drill=')),
    n.name,
  ).toEqual([`mco.drill=${String(r)}`]);
  const current = JSON.parse(
    readFileSync(at('etc/machine-config-daemon/currentconfig'), 'utf8'),
  ) as MachineConfig;
  expect(current.metadata.name).toBe(target);
  expect(existsSync(at('etc/machine-config-daemon/update-journal.json')), n.name).toBe(false);
  expect(existsSync(at('etc/machine-config-daemon/update-journal.d')), n.name).toBe(false);

  // the daemon's own boot-time validation of the rendered config, run on the node's disk
  const rendered = await cluster.admin.get<MachineConfig>(Resources.machineConfig, target);
  const parsed = parseNodeConfig(rendered, 'old');
  if (!parsed.ok) throw new Error(`${target} does not parse`);
  const host = createOstreeHost({ root, runner: createExecCommandRunner() });
  const valid = await checkOnDiskState(host, parsed.value);
  expect(valid.ok ? 'valid' : describeOnDiskValidationFailure(target, valid.error), n.name).toBe(
    'valid',
  );
}

describe('the crash drill: daemons killed with SIGKILL at 36 points of an update', () => {
  let previous = '';
  const fired = new Set<string>();

  beforeAll(async () => {
    previous = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
  });

  for (let r = 1; r <= Rounds; r++) {
    it(
      `round ${String(r)}: every node dies at three points, resumes, and is Done on the new config with the disk matching it`,
      async () => {
        const chains = new Map<string, string[]>();
        cluster.nodes.forEach((n, i) => {
          const targets = chain((r - 1) * NodeCount + i);
          chains.set(n.name, targets);
          writeFileSync(crashFile(n), `${targets.join('\n')}\n`);
        });
        const bad: string[] = [];
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            for (const n of cluster.nodes) {
              const s = await cluster.state(n.name).catch(() => undefined);
              if (s?.state === 'Degraded' || s?.state === 'Unreconcilable')
                bad.push(`${n.name}: ${s.state}: ${s.reason ?? ''}`);
            }
            await sleep(200);
          }
        })();
        await cluster.applyMc(
          '50-worker-crash-drill',
          {
            storage: {
              files: [
                {
                  path: '/etc/mco-drill/app.conf',
                  mode: 0o640,
                  contents: { source: `data:,round%20${String(r)}%0A` },
                },
                {
                  path: `/etc/mco-drill/round-${String(r)}.conf`,
                  mode: 0o644,
                  contents: { source: `data:,${String(r)}%0A` },
                },
              ],
            },
            systemd: {
              units: [
                {
                  name: 'mco-drill.service',
                  enabled: true,
                  contents: Unit,
                  dropins: [{ name: '10-round.conf', contents: dropin(r) }],
                },
              ],
            },
            passwd: { users: [{ name: 'core', sshAuthorizedKeys: [key(r)] }] },
          },
          { kernelArguments: [`mco.drill=${String(r)}`] },
        );
        let target = '';
        try {
          target = await cluster.newTarget('worker', previous);
          await cluster.waitPoolUpdated('worker', target, NodeCount, 8 * Minute);
        } catch (e) {
          throw new Error(`${(e as Error).message}\n${cluster.diagnostics()}`);
        } finally {
          sampling = false;
          await sampler;
        }
        previous = target;

        for (const n of cluster.nodes) {
          const s = await cluster.state(n.name);
          expect(s, n.name).toEqual({ state: 'Done', reason: '', current: target });
          const stamps = existsSync(stampsDir(n)) ? readdirSync(stampsDir(n)) : [];
          const want = (chains.get(n.name) ?? []).map((t) => (t.includes(':') ? t : `${t}:1`));
          expect(
            want.filter((t) => !stamps.includes(t)),
            `${n.name}: points that never fired`,
          ).toEqual([]);
          for (const t of want) fired.add(t);
          await checkDisk(n, r, target);
        }
        expect(bad).toEqual([]);
        if (r === Rounds) expect(fired.size).toBeGreaterThanOrEqual(30);
      },
      10 * Minute,
    );
  }
});
