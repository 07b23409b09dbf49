/**
 * The root resolver against the kernel: generated trees with planted links (absolute at the
 * sentinel's real path, climbing, loops, dangling) and generated paths (`..` runs, `.`, missing
 * folders). The reference model is openat2(2) with RESOLVE_IN_ROOT itself, asked through a
 * python3 helper: every look-up must end where the kernel's does, every write must be where the
 * kernel then finds it, and nothing outside the root may change.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hostilePath,
  linkTarget,
  makeHostileLayout,
  plant,
  plantedEntries,
  snapshotOutside,
  type HostileLayout,
} from '../../test/support/hostile-roots.js';
import { Openat2Oracle } from '../../test/support/openat2-oracle.js';
import { MaxSymlinkHops, NodeRoot } from './node-root.js';

let oracle: Openat2Oracle;
beforeAll(() => {
  oracle = new Openat2Oracle();
});
afterAll(async () => {
  await oracle.stop();
});

function withLayout<T>(fn: (l: HostileLayout, root: NodeRoot) => Promise<T>): Promise<T> {
  const layout = makeHostileLayout('mco-node-root-');
  return fn(layout, new NodeRoot(layout.root)).finally(() => {
    layout.dir.remove();
  });
}

const codeOf = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : undefined;

const bytes = (s: string) => new TextEncoder().encode(s);
const inside = (root: string, p: string) => p === root || p.startsWith(`${root}/`);

describe('the root resolver: the holes it closes', () => {
  it('a drop-in name that climbs from a folder that does not exist yet stays in the root', () =>
    withLayout(async (l, root) => {
      const outside = snapshotOutside(l);
      await root.writeFileAtomic(
        '/etc/systemd/system/kubelet.service.d/../../../../../../../../srv/evil.conf',
        bytes('x\n'),
        { mode: 0o644 },
      );
      // the missing folders were made on the way, then `..` climbed them and stopped at the root
      expect(readFileSync(join(l.root, 'srv/evil.conf'), 'utf8')).toBe('x\n');
      expect(statSync(join(l.root, 'etc/systemd/system/kubelet.service.d')).isDirectory()).toBe(
        true,
      );
      expect(snapshotOutside(l)).toEqual(outside);
    }));

  it('makes a deep run of missing folders one at a time', () =>
    withLayout(async (l, root) => {
      const deep = `/${Array.from({ length: 30 }, (_, i) => `d${String(i)}`).join('/')}`;
      await root.writeFileAtomic(`${deep}/f`, bytes('deep'), { mode: 0o600 });
      await root.mkdirAll(`${deep}/more/and/more`, 0o700);
      expect(readFileSync(join(l.root, deep, 'f'), 'utf8')).toBe('deep');
      expect(statSync(join(l.root, deep, 'more/and')).mode & 0o777).toBe(0o700);
    }));

  it('follows absolute and climbing links inside the root, never to where they point here', () =>
    withLayout(async (l, root) => {
      mkdirSync(join(l.root, 'etc'));
      symlinkSync(l.sentinel, join(l.root, 'etc/abs'));
      symlinkSync('../../../../../../sentinel/etc', join(l.root, 'etc/rel'));
      symlinkSync('/../../../..', join(l.root, 'etc/up'));
      const outside = snapshotOutside(l);
      await root.writeFileAtomic('/etc/abs/keep.txt', bytes('a'), { mode: 0o600 });
      await root.writeFileAtomic('/etc/rel/evil.conf', bytes('r'), { mode: 0o600 });
      await root.writeFileAtomic('/etc/up/srv/evil.conf', bytes('u'), { mode: 0o600 });
      expect(readFileSync(join(l.root, l.sentinel, 'keep.txt'), 'utf8')).toBe('a');
      expect(readFileSync(join(l.root, 'sentinel/etc/evil.conf'), 'utf8')).toBe('r');
      expect(readFileSync(join(l.root, 'srv/evil.conf'), 'utf8')).toBe('u');
      expect(await root.readFile('/etc/abs/keep.txt')).toEqual(Buffer.from('a'));
      expect(root.hostPath('/etc/up/../../x')).toBe(join(l.root, 'x'));
      expect(snapshotOutside(l)).toEqual(outside);
    }));

  it('a link as the last component is replaced by a write, not written through', () =>
    withLayout(async (l, root) => {
      symlinkSync(join(l.sentinel, 'keep.txt'), join(l.root, 'keep.txt'));
      const outside = snapshotOutside(l);
      await root.writeFileAtomic('/keep.txt', bytes('mine'), { mode: 0o644 });
      expect(lstatSync(join(l.root, 'keep.txt')).isFile()).toBe(true);
      await root.symlink('/dev/null', '/keep.txt');
      expect(readlinkSync(join(l.root, 'keep.txt'))).toBe('/dev/null');
      await root.unlink('/keep.txt');
      await root.unlink('/keep.txt');
      expect(snapshotOutside(l)).toEqual(outside);
    }));

  it('follows at most 40 links, as the kernel does', () =>
    withLayout(async (l, root) => {
      // l0 -> l1 -> … -> l40 -> l41, a file: 40 links from l1, 41 from l0
      for (let i = 0; i <= MaxSymlinkHops; i++)
        symlinkSync(`l${String(i + 1)}`, join(l.root, `l${String(i)}`));
      writeFileSync(join(l.root, `l${String(MaxSymlinkHops + 1)}`), 'end\n');
      expect((await root.readFile('/l1'))?.toString()).toBe('end\n');
      expect((await oracle.ask(l.root, 'l1', { follow: true })).real).toBe(
        join(l.root, `l${String(MaxSymlinkHops + 1)}`),
      );
      await expect(root.readFile('/l0')).rejects.toMatchObject({ code: 'ELOOP' });
      expect((await oracle.ask(l.root, 'l0', { follow: true })).errno).toBe('ELOOP');
      symlinkSync('self', join(l.root, 'self'));
      await expect(root.writeFileAtomic('/self/x', bytes(''), { mode: 0o644 })).rejects.toThrow(
        `ELOOP: too many levels of symbolic links, open '${l.root}/self/x'`,
      );
    }));

  it('names node paths in its errors, and refuses a file in the way of a folder', () =>
    withLayout(async (l, root) => {
      writeFileSync(join(l.root, 'file'), '');
      await expect(
        root.writeFileAtomic('/file/x/y', bytes(''), { mode: 0o644 }),
      ).rejects.toMatchObject({
        code: 'ENOTDIR',
        message: `ENOTDIR: not a directory, mkdir '${l.root}/file'`,
      });
      await expect(root.mkdirAll('/file')).rejects.toMatchObject({ code: 'ENOTDIR' });
      expect(await root.stat('/file/x')).toBeUndefined();
      expect(await root.readFile('/missing/x')).toBeUndefined();
      expect(await root.readdir('/missing')).toEqual([]);
      await expect(root.writeFileAtomic('/', bytes(''), { mode: 0o644 })).rejects.toMatchObject({
        code: 'EISDIR',
      });
      await expect(root.removeAll('/..')).rejects.toMatchObject({ code: 'EISDIR' });
    }));

  it('removes a tree without following the links inside it', () =>
    withLayout(async (l, root) => {
      mkdirSync(join(l.root, 'd/e'), { recursive: true });
      symlinkSync(l.sentinel, join(l.root, 'd/e/out'));
      symlinkSync('../../../sentinel', join(l.root, 'd/rel'));
      const outside = snapshotOutside(l);
      await root.removeAll('/d');
      expect(await root.lstat('/d')).toBeUndefined();
      expect(snapshotOutside(l)).toEqual(outside);
    }));

  it('copies through links inside the root, keeping mode and owner', () =>
    withLayout(async (l, root) => {
      mkdirSync(join(l.root, 'etc'));
      writeFileSync(join(l.root, 'etc/src'), 'data\n');
      chmodSync(join(l.root, 'etc/src'), 0o640);
      symlinkSync('/../../sentinel', join(l.root, 'orig'));
      const outside = snapshotOutside(l);
      await root.copyFile('/etc/src', '/orig/etc/src.mcdorig');
      const copy = join(l.root, 'sentinel/etc/src.mcdorig');
      expect(readFileSync(copy, 'utf8')).toBe('data\n');
      expect(statSync(copy).mode & 0o7777).toBe(0o640);
      expect(snapshotOutside(l)).toEqual(outside);
    }));

  it('crosses mount links to their target, while .. below them climbs the node tree', () =>
    withLayout(async (l) => {
      const deploy = join(l.root, 'sysroot/deploy');
      mkdirSync(join(deploy, 'etc'), { recursive: true });
      mkdirSync(join(deploy, 'usr/bin'), { recursive: true });
      mkdirSync(join(l.root, 'usr'));
      mkdirSync(join(l.root, 'var'));
      symlinkSync('sysroot/deploy/etc', join(l.root, 'etc'));
      symlinkSync('../sysroot/deploy/usr/bin', join(l.root, 'usr/bin'));
      const root = new NodeRoot(l.root, {
        mountLinks: (link, target) =>
          (link === join(l.root, 'etc') && target.startsWith('sysroot/')) ||
          (link === join(l.root, 'usr/bin') && target.startsWith('../sysroot/')),
      });
      await root.writeFileAtomic('/etc/x.conf', bytes('x'), { mode: 0o644 });
      expect(readFileSync(join(deploy, 'etc/x.conf'), 'utf8')).toBe('x');
      expect(root.hostPath('/etc/../var')).toBe(join(l.root, 'var'));
      expect(root.hostPath('/usr/bin/../lib')).toBe(join(l.root, 'usr/lib'));
      expect((await root.lstat('/etc'))?.isDirectory()).toBe(true);
      expect((await root.lstat('/etc', { asLink: true }))?.isSymbolicLink()).toBe(true);
      await expect(root.unlink('/etc')).rejects.toMatchObject({ code: 'EISDIR' });
      await root.symlink('sysroot/deploy/usr', '/etc', { asLink: true });
      expect(readlinkSync(join(l.root, 'etc'))).toBe('sysroot/deploy/usr');
    }));
});

describe('the root resolver agrees with openat2(RESOLVE_IN_ROOT)', () => {
  it('looks paths up where the kernel does, with and without following the last link', async () => {
    const layout = makeHostileLayout('mco-node-root-lookup-');
    try {
      await fc.assert(
        fc.asyncProperty(
          plantedEntries(layout.sentinel),
          fc.array(fc.tuple(hostilePath, fc.boolean()), { minLength: 1, maxLength: 12 }),
          async (entries, queries) => {
            const caseRoot = join(layout.root, `case-${String(Math.random()).slice(2)}`);
            mkdirSync(caseRoot);
            try {
              plant(caseRoot, entries);
              const root = new NodeRoot(caseRoot);
              for (const [path, follow] of queries) {
                const kernel = await oracle.ask(caseRoot, path, { follow });
                let ours: { host?: string; exists: boolean; code?: string };
                try {
                  const st = follow ? await root.stat(path) : await root.lstat(path);
                  ours =
                    st === undefined
                      ? { exists: false }
                      : { exists: true, host: root.hostPath(path, follow) };
                } catch (e) {
                  ours = { exists: false, code: codeOf(e) ?? String(e) };
                }
                const where = `${path} (follow ${String(follow)})`;
                if (kernel.errno === 'ELOOP') {
                  expect(ours, where).toEqual({ exists: false, code: 'ELOOP' });
                } else if (kernel.errno !== undefined) {
                  expect(ours, where).toEqual({ exists: false });
                } else {
                  expect(ours, where).toEqual({ exists: true, host: kernel.real });
                }
                // where a new file would go, past missing folders too, is inside the root
                let planned: string | undefined;
                try {
                  planned = root.hostPath(path, follow);
                } catch (e) {
                  expect(codeOf(e), where).toBe('ELOOP');
                }
                if (planned !== undefined) expect(inside(caseRoot, planned), where).toBe(true);
              }
            } finally {
              await new NodeRoot(layout.root).removeAll(caseRoot.slice(layout.root.length));
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      layout.dir.remove();
    }
  });

  type Op =
    | { readonly op: 'write'; readonly path: string; readonly data: string }
    | { readonly op: 'mkdir'; readonly path: string }
    | { readonly op: 'symlink'; readonly path: string; readonly target: string }
    | { readonly op: 'unlink'; readonly path: string }
    | { readonly op: 'removeAll'; readonly path: string }
    | { readonly op: 'copy'; readonly path: string; readonly from: string };

  it('writes, links and removes where the kernel then finds them, and nothing outside the root', async () => {
    const layout = makeHostileLayout('mco-node-root-write-');
    const op = (sentinel: string): fc.Arbitrary<Op> =>
      fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            op: fc.constant('write' as const),
            path: hostilePath,
            data: fc.string({ maxLength: 6 }),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({ op: fc.constant('mkdir' as const), path: hostilePath }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            op: fc.constant('symlink' as const),
            path: hostilePath,
            target: linkTarget(sentinel),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({ op: fc.constant('unlink' as const), path: hostilePath }),
        },
        {
          weight: 1,
          arbitrary: fc.record({ op: fc.constant('removeAll' as const), path: hostilePath }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            op: fc.constant('copy' as const),
            path: hostilePath,
            from: hostilePath,
          }),
        },
      );
    try {
      await fc.assert(
        fc.asyncProperty(
          plantedEntries(layout.sentinel),
          fc.array(op(layout.sentinel), { minLength: 1, maxLength: 6 }),
          async (entries, ops) => {
            const outside = snapshotOutside(layout);
            const root = new NodeRoot(layout.root);
            try {
              plant(layout.root, entries);
              for (const o of ops) await applyAndCheck(root, layout.root, o);
              expect(snapshotOutside(layout)).toEqual(outside);
            } finally {
              for (const name of await root.readdir('/')) await root.removeAll(`/${name}`);
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      layout.dir.remove();
    }
  });

  /** The errors a hostile path may end in: each is a clear errno, never a leak. */
  const Refusals = ['ENOTDIR', 'EISDIR', 'ELOOP', 'ENOENT', 'EINVAL', 'ENOTEMPTY', 'EEXIST'];

  /**
   * Applies one operation. Where it acts is planned first (hostPath: the lookup property shows it
   * is where the kernel resolves); afterwards the result must be there, and where the kernel
   * still resolves the path (an operation may replace a link the path itself goes through), it
   * must be the same place.
   */
  async function applyAndCheck(root: NodeRoot, top: string, o: Op): Promise<void> {
    const where = JSON.stringify(o);
    const follow = o.op === 'mkdir';
    let planned: string | undefined;
    try {
      planned = root.hostPath(o.path, follow);
    } catch (e) {
      expect(codeOf(e), where).toBe('ELOOP');
    }
    const kernelAgrees = async (read: boolean) => {
      const k = await oracle.ask(top, o.path, { follow, read });
      if (k.errno === undefined) expect(k.real, where).toBe(planned);
      return k;
    };
    try {
      switch (o.op) {
        case 'write':
          await root.writeFileAtomic(o.path, bytes(o.data), { mode: 0o640 });
          expect(readFileSync(planned ?? ''), where).toEqual(Buffer.from(o.data));
          await kernelAgrees(true);
          break;
        case 'mkdir':
          await root.mkdirAll(o.path);
          expect(statSync(planned ?? '').isDirectory(), where).toBe(true);
          await kernelAgrees(false);
          break;
        case 'symlink':
          await root.symlink(o.target, o.path);
          expect(readlinkSync(planned ?? ''), where).toBe(o.target);
          break;
        case 'unlink':
        case 'removeAll':
          if (o.op === 'unlink') await root.unlink(o.path);
          else await root.removeAll(o.path);
          // gone, or never there (a missing folder on the way): the kernel finds nothing
          expect((await oracle.ask(top, o.path, { follow: false })).errno, where).toMatch(
            /^(ENOENT|ENOTDIR)$/,
          );
          break;
        case 'copy': {
          const source = await root.readFile(o.from);
          await root.copyFile(o.from, o.path);
          expect(readFileSync(planned ?? ''), where).toEqual(source);
          await kernelAgrees(true);
          break;
        }
      }
    } catch (e) {
      if (e instanceof Error && e.name === 'AssertionError') throw e;
      expect(Refusals, `${where}: ${String(e)}`).toContain(codeOf(e));
      return;
    }
    // a no-op on a path with a missing folder may have no plan (its rest loops): nothing acted
    if (planned !== undefined) expect(inside(top, planned), where).toBe(true);
  }
});

describe('the root resolver under a race', () => {
  it('never writes through a folder that another process keeps swapping for a link out', async () => {
    const l = makeHostileLayout('mco-node-root-race-');
    try {
      mkdirSync(join(l.root, 'etc/d'), { recursive: true });
      const outside = snapshotOutside(l);
      // the attacker: /etc/d is a folder one moment and a link to the sentinel the next
      const attacker = spawn(
        'python3',
        [
          '-c',
          [
            'import os, sys, time',
            'd, keep, out = sys.argv[1], sys.argv[2], sys.argv[3]',
            'end = time.time() + 3',
            'while time.time() < end:',
            '    try:',
            '        os.rename(d, keep); os.symlink(out, d); os.unlink(d); os.rename(keep, d)',
            '    except OSError:',
            '        pass',
          ].join('\n'),
          join(l.root, 'etc/d'),
          join(l.root, 'etc/.d-keep'),
          l.sentinel,
        ],
        { stdio: 'ignore' },
      );
      const exited = new Promise((r) => attacker.once('exit', r));
      const root = new NodeRoot(l.root);
      let written = 0;
      const refused = new Set<string>();
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        try {
          await root.writeFileAtomic(`/etc/d/f${String(written % 50)}`, bytes('x'), {
            mode: 0o644,
          });
          written++;
        } catch (e) {
          refused.add(codeOf(e) ?? String(e));
        }
      }
      await exited;
      expect(written).toBeGreaterThan(0);
      expect([...refused].filter((c) => !['ENOENT', 'ENOTDIR', 'EAGAIN'].includes(c))).toEqual([]);
      // files landed in the folder or, when the link was there, re-rooted at <root><sentinel>
      expect(snapshotOutside(l)).toEqual(outside);
    } finally {
      l.dir.remove();
    }
  });
});
