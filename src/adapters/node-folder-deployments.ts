/**
 * The box's node deployments (ports/node-deployments-source.ts): one node folder per Node name below
 * `nodesDir`, read as `mco node status` reads it: the BLS entries in boot order, `ostree admin
 * status` for versions and origins, the simulated boot's booted and staged records.
 */
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { createExecCommandRunner } from './exec-command-runner.js';
import { nodeLayout, readBooted, readStaged } from './ostree-boot.js';
import { deploymentOfEntry, OstreeCli, readBootEntries } from './ostree.js';
import { dns1123SubdomainProblems } from '../api/meta/v1/label-selector-matching.js';
import { err, ok } from '../lib/result.js';
import type {
  DeploymentView,
  NodeDeployments,
  NodeDeploymentsSource,
} from '../ports/node-deployments-source.js';

const roleOf = (index: number): string =>
  index === 0 ? 'default' : index === 1 ? 'rollback' : `#${index}`;

/** Reads one node folder (`<dir>/rootfs`, `<dir>/state`) as `mco node status` does. */
async function readNodeFolderDeployments(dir: string): Promise<NodeDeployments> {
  const layout = nodeLayout(dir);
  const ostree = new OstreeCli(createExecCommandRunner());
  const entries = await readBootEntries(layout.sysroot);
  const listed = await ostree.status(layout.sysroot);
  const booted = await readBooted(layout.state);
  const deployments: DeploymentView[] = [];
  for (const [index, entry] of entries.entries()) {
    const ref = await deploymentOfEntry(layout.sysroot, entry);
    const status = listed.find((d) => d.checksum === ref.checksum && d.serial === ref.serial);
    deployments.push({
      deployment: `${ref.checksum}.${ref.serial}`,
      role: roleOf(index),
      booted:
        booted !== undefined && booted.checksum === ref.checksum && booted.serial === ref.serial,
      version: status?.version ?? '',
      origin: status?.originRefspec ?? '',
      kernelArguments: entry.kernelArguments,
    });
  }
  const staged = await readStaged(layout.root);
  return {
    deployments,
    ...(staged === undefined
      ? {}
      : {
          staged: {
            checksum: staged.checksum,
            version: staged.version ?? '',
            image: staged.image ?? '',
            kernelArguments: staged.kernelArguments,
          },
        }),
  };
}

/** The box's node folders, one per Node name below `nodesDir`. */
export function nodeFolderDeployments(nodesDir: string): NodeDeploymentsSource {
  return {
    async read(node) {
      if (dns1123SubdomainProblems(node).length > 0) return err(`"${node}" is not a node name`);
      const dir = join(nodesDir, node);
      if (!existsSync(join(dir, 'node.json'))) return err(`no node folder for ${node}`);
      try {
        return ok(await readNodeFolderDeployments(dir));
      } catch (e) {
        return err(`reading the deployments failed: ${(e as Error).message}`);
      }
    },
  };
}
