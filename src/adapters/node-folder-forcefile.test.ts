import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFolderForcefile } from './node-folder-forcefile.js';

describe('nodeFolderForcefile', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const box = () => {
    const d = mkdtempSync(join(tmpdir(), 'mco-forcefile-'));
    dirs.push(d);
    const node = join(d, 'nodes/worker-0');
    mkdirSync(join(node, 'rootfs/run'), { recursive: true });
    writeFileSync(join(node, 'node.json'), '{}');
    return { d, nodes: join(d, 'nodes'), node };
  };

  it("writes /run/machine-config-daemon-force in the node's root", async () => {
    const { nodes, node } = box();
    expect(await nodeFolderForcefile(nodes).touch('worker-0')).toEqual({
      ok: true,
      value: '/run/machine-config-daemon-force',
    });
    expect(existsSync(join(node, 'rootfs/run/machine-config-daemon-force'))).toBe(true);
  });

  it('does not follow a /run the node made a symlink to the outside', async () => {
    const { d, nodes, node } = box();
    const outside = join(d, 'outside');
    mkdirSync(outside);
    rmSync(join(node, 'rootfs/run'), { recursive: true });
    symlinkSync(outside, join(node, 'rootfs/run'));
    await nodeFolderForcefile(nodes).touch('worker-0');
    expect(existsSync(join(outside, 'machine-config-daemon-force'))).toBe(false);
  });

  it.each(['..', '../nodes/worker-0', 'worker-0/../worker-0', 'nope'])(
    'refuses %j',
    async (name) => {
      const { nodes } = box();
      expect((await nodeFolderForcefile(nodes).touch(name)).ok).toBe(false);
    },
  );
});
