/**
 * The node's own answer to "where do I pull this image from": its
 * `/etc/containers/registries.conf` (read through the node's root, so a symlink there cannot
 * point outside it) turned into mirrors and source by pull-sources.ts, read again for every pull,
 * so a mirror set rolled out to the node applies to its next OS image pull.
 */
import { pullSources } from '../logic/registries/pull-sources.js';
import { ContainerRegistryConfPath } from '../logic/nodeplan/node-paths.js';
import { viewRoot } from './ostree-boot.js';

export function nodeRegistriesConfSources(
  root: string,
): (image: string) => Promise<readonly string[]> {
  const view = viewRoot(root);
  return async (image) => {
    const reference = image.startsWith('docker://') ? image.slice('docker://'.length) : image;
    const text = (await view.readFile(ContainerRegistryConfPath))?.toString('utf8');
    const r = pullSources(text, reference);
    if (!r.ok) throw new Error(r.error);
    return r.value.references;
  };
}
