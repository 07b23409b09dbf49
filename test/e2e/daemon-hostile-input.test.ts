/**
 * Hostile MachineConfigs applied with `mco daemon --once-from` to a root under a temp folder,
 * with a sentinel folder next to it: unit names and drop-in names with `/` and `..` runs, file
 * paths that are relative or climb, links in the config, on roots with links planted every way
 * a link can leave them (absolute at the sentinel's real path, climbing, loops, dangling).
 *
 * - Nothing outside the root is ever created, changed or deleted.
 * - A bad input fails with a clear error and leaves the root exactly as it was (paths, modes,
 *   owners, contents, mtimes).
 * - A good input through planted links is applied inside the root, where the kernel's
 *   openat2(RESOLVE_IN_ROOT) finds it.
 *
 * The same cases run in-process too (runOnceFrom on the ostree host), many more of them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecCommandRunner } from '../../src/adapters/exec-command-runner.js';
import { createOstreeHost } from '../../src/adapters/ostree-host.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import { noDaemonMetrics } from '../../src/ports/daemon-metrics.js';
import { runOnceFrom } from '../../src/daemon/once-from.js';
import { silentLogger } from '../../src/ports/logger.js';
import { FakeClock } from '../support/fake-clock.js';
import {
  HostileOsImage,
  makeHostileLayout,
  prepareOstreeRoot,
  NodeNames,
  plant,
  plantedEntries,
  snapshotOutside,
  type HostileLayout,
  type PlantedEntry,
} from '../support/hostile-roots.js';
import { badPart, hostileIgnition, Refusals, type BadPart } from '../support/hostile-configs.js';
import { Openat2Oracle } from '../support/openat2-oracle.js';
import { runMco } from '../support/run-mco.js';
import { snapshotTree } from '../support/tree-snapshot.js';

const OsImage = HostileOsImage;
/** The supervisor's records beside the root: the ostree host's channel, not the node's files. */
const SupervisorChannel = 'state';

/** What one case holds: what is planted, the config, and why it must be refused (if it must). */
interface HostileCase {
  readonly planted: readonly PlantedEntry[];
  readonly files: readonly { readonly path: string; readonly data: string }[];
  readonly bad?: BadPart;
}

const goodFile = fc
  .record({
    dirs: fc.array(fc.constantFrom(...NodeNames), { minLength: 1, maxLength: 3 }),
    name: fc.constantFrom('x.conf', 'evil.conf', 'keep.txt'),
    data: fc.constantFrom('hello\n', 'mine\n'),
  })
  .map((r) => ({ path: `/${[...r.dirs, r.name].join('/')}`, data: r.data }));

function hostileCase(sentinel: string): fc.Arbitrary<HostileCase> {
  return fc
    .record({
      planted: plantedEntries(sentinel),
      files: fc.uniqueArray(goodFile, { maxLength: 3, selector: (f) => f.path }),
      bad: fc.option(badPart(sentinel), { nil: undefined, freq: 3 }),
    })
    .map(({ bad, ...rest }): HostileCase => (bad === undefined ? rest : { ...rest, bad }));
}

function machineConfig(c: HostileCase, n: number): MachineConfig {
  const files = c.files.map((f) => ({
    path: f.path,
    mode: 0o644,
    contents: { source: `data:,${encodeURIComponent(f.data)}` },
  }));
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name: `rendered-hostile-${String(n)}` },
    spec: { osImageURL: OsImage, config: hostileIgnition(files, c.bad) },
  };
}

function prepare(layout: HostileLayout, c: HostileCase): void {
  prepareOstreeRoot(layout);
  plant(layout.root, c.planted);
}

let oracle: Openat2Oracle;
beforeAll(() => {
  oracle = new Openat2Oracle();
});
afterAll(async () => {
  await oracle.stop();
});

type Apply = (
  layout: HostileLayout,
  mcFile: string,
  mc: MachineConfig,
) => Promise<{ ok: boolean; output: string }>;

const throughCli: Apply = (layout, mcFile) => {
  const r = runMco([
    'daemon',
    '--node',
    'hostile',
    '--root',
    layout.root,
    '--host',
    'ostree',
    '--once-from',
    mcFile,
  ]);
  return Promise.resolve({ ok: r.code === 0, output: `${r.stdout}${r.stderr}` });
};

const inProcess: Apply = async (layout, mcFile, mc) => {
  const host = createOstreeHost({ root: layout.root, runner: createExecCommandRunner() });
  try {
    await runOnceFrom({
      host,
      log: silentLogger,
      clock: new FakeClock(),
      events: { emit: () => Promise.resolve() },
      metrics: noDaemonMetrics,
      content: JSON.stringify(mc),
      source: mcFile,
      encapsulated: false,
    });
    return { ok: true, output: '' };
  } catch (e) {
    return { ok: false, output: e instanceof Error ? e.message : String(e) };
  }
};

/** Generated cases name the sentinel by this placeholder: each case's layout has its own. */
const Sentinel = '/@SENTINEL@';

async function checkCase(generated: HostileCase, n: number, apply: Apply): Promise<void> {
  const layout = makeHostileLayout('mco-hostile-once-');
  const c = JSON.parse(
    JSON.stringify(generated).split(Sentinel).join(layout.sentinel),
  ) as HostileCase;
  try {
    prepare(layout, c);
    const mc = machineConfig(c, n);
    const mcFile = join(layout.dir.path, 'input.json');
    writeFileSync(mcFile, JSON.stringify(mc));
    const rootBefore = snapshotTree(layout.root);
    // the input file and the supervisor's reboot request are the only things allowed to appear
    const skip = ['input.json', `${SupervisorChannel}/reboot-request.json`];
    // (the supervisor's folder gains a reboot request, so its own mtime may change)
    const outside = () => {
      const snap = { ...snapshotOutside(layout, skip) };
      const state = snap[SupervisorChannel];
      if (state !== undefined) snap[SupervisorChannel] = { ...state, mtimeNs: '' };
      return snap;
    };
    const outsideBefore = outside();
    const result = await apply(layout, mcFile, mc);
    const where = `${JSON.stringify(c)}\n${result.output}`;
    expect(outside(), where).toEqual(outsideBefore);
    if (c.bad !== undefined) {
      expect(result.ok, where).toBe(false);
      expect(result.output, where).toMatch(Refusals[c.bad.kind]);
      expect(snapshotTree(layout.root), where).toEqual(rootBefore);
      return;
    }
    if (!result.ok) {
      // a good config on a root whose planted files are in the way: a clear errno, rolled back
      expect(result.output, where).toMatch(
        /not a directory|is a directory|too many levels of symbolic links/,
      );
      return;
    }
    // Two paths of a config can name one file through a planted link (/a -> /b makes /a/x and
    // /b/x the same file): it then holds what one of them says, and reads the same through both.
    const found: { f: (typeof c.files)[number]; k: Awaited<ReturnType<typeof oracle.ask>> }[] = [];
    for (const f of c.files)
      found.push({ f, k: await oracle.ask(layout.root, f.path, { follow: false, read: true }) });
    for (const { f, k } of found) {
      const aliases = found.filter((o) => o.k.real !== undefined && o.k.real === k.real);
      const expected = aliases.length > 1 ? aliases.map((o) => o.f.data) : [f.data];
      expect(expected, `${where}\n${f.path} (${k.real ?? k.errno ?? ''})`).toContain(
        k.data?.toString(),
      );
    }
  } finally {
    layout.dir.remove();
  }
}

describe('hostile MachineConfigs through mco daemon --once-from', () => {
  it("the issue's two escapes are refused at the node, which stays as it was", async () => {
    const refused = (bad: BadPart, n: number) =>
      checkCase({ planted: [], files: [], bad }, n, throughCli);
    await refused({ kind: 'dropin', name: '../../../../../../../../srv/evil.conf' }, 0);
    await refused({ kind: 'unit', name: 'a/../../../../srv/x.service' }, 1);
    // and a good file through a link planted at the sentinel's real path lands in the root
    await checkCase(
      {
        planted: [{ kind: 'link', path: '/etc', target: Sentinel }],
        files: [{ path: '/etc/evil.conf', data: 'hello\n' }],
      },
      2,
      throughCli,
    );
  });

  it('generated cases: nothing outside the root changes; bad input is refused with the root untouched', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostileCase(Sentinel), (c) => checkCase(c, n++, throughCli)),
      { numRuns: Number(process.env['MCO_HOSTILE_RUNS'] ?? 25) },
    );
  }, 600_000);

  it('the same cases in-process, many more of them', async () => {
    // Found by the property: two paths of the config that are one file through a planted link.
    await checkCase(
      {
        planted: [{ kind: 'link', path: '/systemd', target: '/../srv' }],
        files: [
          { path: '/systemd/sentinel/keep.txt', data: 'mine\n' },
          { path: '/srv/sentinel/keep.txt', data: 'hello\n' },
        ],
      },
      1000,
      inProcess,
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostileCase(Sentinel), (c) => checkCase(c, n++, inProcess)),
      { numRuns: 200 },
    );
  }, 600_000);
});
