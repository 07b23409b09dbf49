/**
 * Adopting nodes that run without MCO annotations (docs/daemon.md "Adopting existing nodes"), end
 * to end on the daemon harness: one simulated worker is provisioned and Done, then made into a
 * node of an existing cluster: powered off, its MCO annotations removed from the Node and the
 * daemon's records (currentconfig, node-annotations.json) removed from its disk. Its disk was
 * written by Ignition from the worker pool's config.
 *
 * 1. It boots: the daemon finds its disk matches the pool's current rendered config, records it
 *    and is Done at that config, with no reboot.
 * 2. The same again, with a file of the pool's config changed on disk: the daemon reports the
 *    difference (an event, Degraded with the difference as the reason) and changes nothing.
 * 3. The administrator opts the node in (`machineconfiguration.openshift.io/adopt=true`): the
 *    daemon applies the pool's config as an update (the file restored, a reboot) and is Done.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotation, DaemonState } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../../src/api/resource-refs.js';
import { AdoptAnnotation } from '../../src/logic/nodeplan/adoption.js';
import { parseNodeConfig } from '../../src/logic/nodeplan/node-config.js';
import { DaemonCluster, Minute, sleep, until, type SimNode } from './daemon-harness.js';

let cluster: DaemonCluster;
let node: SimNode;
let rendered = '';
/** A file of the pool's config, on the node, with its contents as the config has them. */
let probe: { path: string; contents: string };
let daemonLogMark = 0;

const McoNodeAnnotations = [
  Annotation.currentConfig,
  Annotation.desiredConfig,
  Annotation.state,
  Annotation.reason,
  Annotation.desiredDrain,
  Annotation.lastAppliedDrain,
  Annotation.postConfigAction,
];

/** Makes the node one the MCO never managed: powered off, no annotations, no daemon records. */
async function forget(n: SimNode): Promise<void> {
  await cluster.stopNode(n);
  const removals = McoNodeAnnotations.map((k) => `${k}-`);
  const r = await cluster.kubectl(['annotate', 'node', n.name, ...removals]);
  if (r.code !== 0) throw new Error(r.stderr);
  for (const f of ['currentconfig', 'node-annotations.json', 'node-annotations.json.bak'])
    rmSync(join(n.root, 'etc/machine-config-daemon', f), { force: true });
  rmSync(join(n.dir, 'state/reboot-request.json'), { force: true });
  n.supervisorLog = '';
  daemonLogMark = cluster.daemonLog(n).length;
}

/** The daemon's log since the node was last forgotten. */
const daemonLogSince = (n: SimNode) => cluster.daemonLog(n).slice(daemonLogMark);

async function events(reason: string): Promise<string[]> {
  const r = await cluster.kubectl([
    'get',
    'events',
    '-A',
    '--field-selector',
    `reason=${reason}`,
    '-o',
    'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
  ]);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout.split('\n').filter((l) => l !== '');
}

const reboots = (n: SimNode) =>
  n.supervisorLog.split('\n').filter((l) => l.includes('"rebooting"'));

beforeAll(async () => {
  cluster = await DaemonCluster.start({ nodes: 1 });
  const first = cluster.nodes[0];
  if (first === undefined) throw new Error('no node');
  node = first;
  rendered = (await cluster.getPool('worker')).status?.configuration?.name ?? '';
  const mc = await cluster.admin.get<MachineConfig>(Resources.machineConfig, rendered);
  const parsed = parseNodeConfig(mc, 'new');
  if (!parsed.ok) throw new Error('rendered config does not parse');
  const file = parsed.value.ignition.storage?.files?.find(
    (f) => f.path.startsWith('/etc/') && f.contents?.source?.startsWith('data:,') === true,
  );
  if (file === undefined) throw new Error('no /etc file with inline contents in the config');
  probe = { path: file.path, contents: readFileSync(join(node.root, file.path), 'utf8') };
}, 8 * Minute);

afterAll(async () => {
  await cluster?.dispose();
}, 3 * Minute);

describe('a node without MCO annotations', () => {
  it(
    "whose disk matches the pool's config is recorded and Done, with no reboot",
    async () => {
      // GIVEN the node, forgotten by the MCO, its disk as Ignition wrote it from the pool's config
      await forget(node);
      expect((await cluster.annotations(node.name))[Annotation.currentConfig]).toBeUndefined();
      // WHEN it boots
      cluster.startNode(node);
      // THEN the daemon adopts it: Done at the pool's config, no reboot asked or made
      await until(
        'the node adopted and Done',
        async () => {
          const s = await cluster.state(node.name);
          return s.state === DaemonState.Done && s.current === rendered ? true : undefined;
        },
        3 * Minute,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}\n${cluster.diagnostics()}`);
      });
      const a = await cluster.annotations(node.name);
      expect(a[Annotation.desiredConfig]).toBe(rendered);
      expect(a[Annotation.reason] ?? '').toBe('');
      expect(await events('Adopting')).toContain(
        `Adopting node ${node.name}: its disk matches ${rendered} of pool worker; recording it without a reboot`,
      );
      expect(reboots(node)).toEqual([]);
      expect(existsSync(join(node.dir, 'state/reboot-request.json'))).toBe(false);
      expect(
        JSON.parse(
          readFileSync(join(node.root, 'etc/machine-config-daemon/currentconfig'), 'utf8'),
        ),
      ).toMatchObject({ metadata: { name: rendered } });
      await cluster.waitPoolUpdated('worker', rendered, 1, 2 * Minute);
    },
    6 * Minute,
  );

  it(
    'whose disk differs reports the difference and is left alone, until opted in; then it is updated',
    async () => {
      // GIVEN the node forgotten again, with a file of the pool's config changed on its disk
      await forget(node);
      const onNode = join(node.root, probe.path);
      writeFileSync(onNode, 'changed by hand\n');
      // WHEN it boots
      cluster.startNode(node);
      // THEN the daemon reports the difference: Degraded with it as the reason, and an event
      const reason = await until(
        'the difference reported',
        async () => {
          const s = await cluster.state(node.name);
          return s.state === DaemonState.Degraded ? s.reason : undefined;
        },
        3 * Minute,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}\n${cluster.diagnostics()}`);
      });
      const expected = `node ${node.name} is not managed: its disk differs from ${rendered} of pool worker: `;
      expect(reason).toContain(expected);
      expect(reason).toContain(probe.path);
      expect(reason).toContain(`${AdoptAnnotation}=true`);
      expect((await events('AdoptionOnDiskDiffers')).some((m) => m.startsWith(expected))).toBe(
        true,
      );
      // … and leaves the node alone through its retries
      await sleep(8_000);
      expect(readFileSync(onNode, 'utf8')).toBe('changed by hand\n');
      const a = await cluster.annotations(node.name);
      expect(a[Annotation.currentConfig]).toBeUndefined();
      expect(a[Annotation.desiredConfig]).toBeUndefined();
      expect(daemonLogSince(node)).not.toContain('starting update');
      expect(reboots(node)).toEqual([]);

      // WHEN the administrator opts the node in
      const r = await cluster.kubectl(['annotate', 'node', node.name, `${AdoptAnnotation}=true`]);
      expect(r.code, r.stderr).toBe(0);
      // THEN the pool's config is applied as an update: the file restored, a reboot, Done
      await until(
        'the node updated into the pool and Done',
        async () => {
          const s = await cluster.state(node.name);
          return s.state === DaemonState.Done && s.current === rendered ? true : undefined;
        },
        4 * Minute,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}\n${cluster.diagnostics()}`);
      });
      expect(readFileSync(onNode, 'utf8')).toBe(probe.contents);
      expect(reboots(node).length).toBeGreaterThan(0);
      expect(
        (await events('Adopting')).some((m) =>
          m.startsWith(`Adopting node ${node.name} by update to ${rendered} of pool worker`),
        ),
      ).toBe(true);
    },
    8 * Minute,
  );
});
