/**
 * The daemon end to end: real `mco apiserver`, `mco operator`,
 * `mco controller`, `mco server` and three simulated nodes (`mco node`, real OSTree sysroots,
 * `systemctl --root`, the real Ignition at first boot), each running `mco daemon --host ostree`.
 *
 * A MachineConfig with a file, a unit with a dropin, an SSH key and a kernel argument is applied
 * with kubectl. Each node in turn goes Working, is drained (its pods evicted), writes the files,
 * stages a deployment with the kernel argument, reboots into it, validates and is Done; the pool
 * is Updated. Then on every node: the file's contents and mode, the unit's enablement link,
 * authorized_keys.d/ignition, `ostree admin status` with the kernel argument on the booted
 * deployment's boot entry, and /etc changes carried into the new deployment.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, readlinkSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../../src/api/resource-refs.js';
import { parseNodeConfig } from '../../src/logic/nodeplan/node-config.js';
import { authorizedKeysContent } from '../../src/logic/nodeplan/users.js';
import { DaemonCluster, Minute, sleep, type SimNode } from './daemon-harness.js';

const NewKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDaemonE2eRolloutKey core@rollout';
const Unit = [
  '[Unit]',
  'Description=mco daemon e2e',
  '',
  '[Service]',
  'Type=oneshot',
  'ExecStart=/usr/bin/true',
  '',
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');
const Dropin = '[Service]\nEnvironment=MCO_E2E=1\n';

interface Timeline {
  states: string[];
  drains: string[];
  notReady: boolean;
  podsBefore: Set<string>;
  firstWorkingAt?: number;
  doneAt?: number;
}

let cluster: DaemonCluster;
let before = '';
let target = '';
const timelines = new Map<string, Timeline>();
let maxBusy = 0;

function bootedRecord(n: SimNode): { checksum: string; serial: number; kernelArguments: string[] } {
  return JSON.parse(readFileSync(join(n.dir, 'state/booted.json'), 'utf8')) as ReturnType<
    typeof bootedRecord
  >;
}

beforeAll(async () => {
  cluster = await DaemonCluster.start({ nodes: 3 });
  before = (await cluster.getPool('worker')).spec.configuration?.name ?? '';
}, 12 * Minute);

afterAll(async () => {
  await cluster?.dispose();
}, 3 * Minute);

describe('a MachineConfig rolls out through the daemons of three simulated nodes', () => {
  it(
    'each node in turn: Working, drained (pods evicted), rebooted with the kernel argument, Done; the pool Updated',
    async () => {
      for (const n of cluster.nodes) {
        const pods = await cluster.pods(n.name);
        expect(pods.length).toBeGreaterThan(0);
        timelines.set(n.name, {
          states: [],
          drains: [],
          notReady: false,
          podsBefore: new Set(pods.map((p) => p.metadata.uid ?? '')),
        });
      }
      // One pass over the nodes. The pool turns Updated as soon as the last node is Done, which the
      // waiter below may see between two passes: a last pass after it closes the timelines.
      const sample = async (): Promise<void> => {
        let busy = 0;
        for (const n of cluster.nodes) {
          const t = timelines.get(n.name)!;
          const node = await cluster.getNode(n.name).catch(() => undefined);
          if (node === undefined) continue;
          const a = node.metadata.annotations ?? {};
          const state = a[Annotation.state] ?? '';
          if (t.states.at(-1) !== state) t.states.push(state);
          if (state === 'Working' && t.firstWorkingAt === undefined) t.firstWorkingAt = Date.now();
          const drain = `${a[Annotation.desiredDrain] ?? ''}/${a[Annotation.lastAppliedDrain] ?? ''}`;
          if (t.drains.at(-1) !== drain) t.drains.push(drain);
          const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
          if (ready !== 'True') t.notReady = true;
          if (a[Annotation.currentConfig] !== a[Annotation.desiredConfig] || state !== 'Done')
            busy++;
          if (a[Annotation.currentConfig] === target && state === 'Done' && t.doneAt === undefined)
            t.doneAt = Date.now();
        }
        maxBusy = Math.max(maxBusy, busy);
      };
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          await sample();
          await sleep(100);
        }
      })();

      await cluster.applyMc(
        '50-worker-daemon-e2e',
        {
          storage: {
            files: [
              {
                path: '/etc/mco-e2e/app.conf',
                mode: 0o640,
                contents: { source: 'data:,hello%20from%20the%20daemon%20e2e%0A' },
              },
            ],
          },
          systemd: {
            units: [
              {
                name: 'mco-e2e.service',
                enabled: true,
                contents: Unit,
                dropins: [{ name: '10-e2e.conf', contents: Dropin }],
              },
            ],
          },
          passwd: { users: [{ name: 'core', sshAuthorizedKeys: [NewKey] }] },
        },
        { kernelArguments: ['mco.e2e=1'] },
      );
      target = await cluster.newTarget('worker', before);
      try {
        await cluster.waitPoolUpdated('worker', target, 3, 10 * Minute);
      } catch (e) {
        throw new Error(`${(e as Error).message}\n${cluster.diagnostics()}`);
      } finally {
        sampling = false;
        await sampler;
      }
      await sample();

      for (const n of cluster.nodes) {
        const t = timelines.get(n.name)!;
        expect(t.states, n.name).toEqual(['Done', 'Working', 'Done']);
        expect(t.drains, n.name).toEqual(
          expect.arrayContaining([
            `drain-${target}/drain-${target}`,
            `uncordon-${target}/uncordon-${target}`,
          ]),
        );
        expect(t.notReady, `${n.name} rebooted (NotReady)`).toBe(true);
        const podsAfter = new Set((await cluster.pods(n.name)).map((p) => p.metadata.uid ?? ''));
        expect(
          [...t.podsBefore].filter((u) => podsAfter.has(u)),
          `${n.name} pods evicted`,
        ).toEqual([]);
      }
      // one at a time (maxUnavailable 1): their Working..Done windows do not overlap
      const windows = cluster.nodes
        .map((n) => timelines.get(n.name)!)
        .map((t) => [t.firstWorkingAt ?? 0, t.doneAt ?? 0] as const)
        .sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < windows.length; i++)
        expect(windows[i]![0]).toBeGreaterThanOrEqual(windows[i - 1]![1] - 200);
      expect(maxBusy).toBe(1);
      const pool = await cluster.getPool('worker');
      expect(pool.status?.conditions?.find((c) => c.type === 'Updated')).toMatchObject({
        status: 'True',
        message: `All nodes are updated with MachineConfig ${target}`,
      });
      expect(pool.status).toMatchObject({
        machineCount: 3,
        updatedMachineCount: 3,
        degradedMachineCount: 0,
      });
    },
    12 * Minute,
  );

  it(
    'on every node: the file, the unit and its enablement link, the SSH keys, the kernel argument on the booted deployment, /etc carried over',
    async () => {
      // kubectl describe node finds the daemon's events by the Node's uid
      const first = cluster.nodes[0]?.name ?? '';
      const described = await cluster.kubectl(['describe', 'node', first]);
      expect(described.stdout).toMatch(
        /Normal\s+OSUpdateStaged\s+\S+\s+machineconfigdaemon\s+Changes to OS staged/,
      );
      const rendered = await cluster.admin.get<MachineConfig>(Resources.machineConfig, target);
      const parsed = parseNodeConfig(rendered);
      if (!parsed.ok) throw new Error('rendered config does not parse');
      const keys = authorizedKeysContent(parsed.value.ignition);
      expect(keys).toContain(NewKey);
      for (const n of cluster.nodes) {
        const node: Node = await cluster.getNode(n.name);
        expect(node.metadata.annotations?.[Annotation.currentConfig]).toBe(target);
        expect(node.metadata.annotations?.[Annotation.state]).toBe('Done');
        const r = n.root;
        expect(readFileSync(join(r, 'etc/mco-e2e/app.conf'), 'utf8')).toBe(
          'hello from the daemon e2e\n',
        );
        expect(statSync(join(r, 'etc/mco-e2e/app.conf')).mode & 0o7777).toBe(0o640);
        expect(readFileSync(join(r, 'etc/systemd/system/mco-e2e.service'), 'utf8')).toBe(Unit);
        expect(
          readFileSync(join(r, 'etc/systemd/system/mco-e2e.service.d/10-e2e.conf'), 'utf8'),
        ).toBe(Dropin);
        expect(
          readlinkSync(join(r, 'etc/systemd/system/multi-user.target.wants/mco-e2e.service')),
        ).toBe('/etc/systemd/system/mco-e2e.service');
        expect(
          execFileSync('systemctl', [`--root=${r}`, 'is-enabled', 'mco-e2e.service'], {
            encoding: 'utf8',
          }).trim(),
        ).toBe('enabled');
        const fragment = join(r, 'home/core/.ssh/authorized_keys.d/ignition');
        expect(readFileSync(fragment, 'utf8')).toBe(keys);
        expect(statSync(fragment).mode & 0o7777).toBe(0o600);
        expect(statSync(join(r, 'home/core/.ssh/authorized_keys.d')).mode & 0o7777).toBe(0o700);
        const coreUid = Number(
          readFileSync(join(r, 'etc/passwd'), 'utf8')
            .split('\n')
            .find((l) => l.startsWith('core:'))
            ?.split(':')[2],
        );
        expect(statSync(fragment).uid).toBe(coreUid);

        // the booted deployment is a new one, its boot entry carries the argument
        const booted = bootedRecord(n);
        expect(booted.serial).toBeGreaterThanOrEqual(1);
        expect(booted.kernelArguments).toContain('mco.e2e=1');
        const status = execFileSync('ostree', ['admin', 'status', `--sysroot=${n.sysroot}`], {
          encoding: 'utf8',
        });
        expect(status).toContain(`${booted.checksum}.${String(booted.serial)}`);
        const entries = join(n.sysroot, 'boot/loader/entries');
        const bootedEntry = readdirSync(entries)
          .map((f) => readFileSync(join(entries, f), 'utf8'))
          .find((text) => text.split('\n')[0]?.includes('(ostree:0)'));
        expect(bootedEntry).toMatch(/^options .*\bmco\.e2e=1\b/m);
        // /etc of the new deployment holds what the daemon wrote before the reboot (three-way merge)
        const deployEtc = join(
          n.sysroot,
          'ostree/deploy/testos/deploy',
          `${booted.checksum}.${String(booted.serial)}`,
          'etc',
        );
        expect(readFileSync(join(deployEtc, 'mco-e2e/app.conf'), 'utf8')).toBe(
          'hello from the daemon e2e\n',
        );
        expect(
          readFileSync(join(deployEtc, 'machine-config-daemon/currentconfig'), 'utf8'),
        ).toContain(target);
        expect(lstatSync(join(r, 'etc')).isSymbolicLink()).toBe(true);
        expect(readlinkSync(join(r, 'etc'))).toContain(
          `${booted.checksum}.${String(booted.serial)}`,
        );
      }
    },
    2 * Minute,
  );
});
