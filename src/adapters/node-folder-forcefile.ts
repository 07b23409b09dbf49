/**
 * The forcefile on a node of the box (ports/node-forcefile.ts): `/run/machine-config-daemon-force`
 * in `<nodesDir>/<node>/rootfs`, written through NodeRoot so that a symlink the node planted at
 * /run or at the file itself cannot carry the write outside the node's root.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NodeRoot } from './node-root.js';
import { nodeLayout } from './ostree-boot.js';
import { dns1123SubdomainProblems } from '../api/meta/v1/label-selector-matching.js';
import { err, ok } from '../lib/result.js';
import { ForceFilePath } from '../logic/nodeplan/node-paths.js';
import type { NodeForcefile } from '../ports/node-forcefile.js';

export function nodeFolderForcefile(nodesDir: string): NodeForcefile {
  return {
    async touch(node) {
      if (dns1123SubdomainProblems(node).length > 0) return err(`"${node}" is not a node name`);
      const dir = join(nodesDir, node);
      if (!existsSync(join(dir, 'node.json'))) return err(`no node folder for ${node}`);
      const root = new NodeRoot(nodeLayout(dir).root);
      try {
        await root.writeFileAtomic(ForceFilePath, new Uint8Array(), { mode: 0o644 });
        return ok(ForceFilePath);
      } catch (e) {
        return err(`writing ${ForceFilePath} failed: ${(e as Error).message}`);
      }
    },
  };
}
