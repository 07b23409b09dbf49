/**
 * `mco upgrade --to-image RELEASE`: the `oc adm upgrade --to-image` path. Reads the release image
 * for its version, then sets ClusterVersion `spec.desiredUpdate` to `{image, version}` (creating
 * the ClusterVersion `version` if the cluster has none yet). The operator, following release
 * images, takes it from there (src/operator/cluster-version-reconciler.ts).
 */
import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { openSource } from '../adapters/oci/image-locations.js';
import { readReleaseImage } from '../adapters/oci/release-image.js';
import {
  ClusterVersionName,
  type ClusterVersion,
  type Update,
} from '../api/config/v1/cluster-version.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { CliIo } from '../shell/cli-io.js';
import {
  clusterClient,
  loadKubeconfig,
  withKubeconfigFlags,
  type KubeconfigEnvironment,
  type KubeconfigFlags,
} from './kubeconfig-loading.js';
import {
  asCliError,
  parseLocation,
  withRegistry,
  withRegistryOptions,
  type RegistryFlags,
} from './os-image-command.js';

interface UpgradeOptions extends RegistryFlags, KubeconfigFlags {
  readonly toImage: string;
}

/** Sets the desired update, creating the ClusterVersion when there is none. */
export async function requestUpdate(client: ResourceClient, update: Update): Promise<void> {
  try {
    await client.patch(
      Resources.clusterVersion,
      ClusterVersionName,
      { spec: { desiredUpdate: update } },
      'merge',
    );
  } catch (e) {
    if (!isStatusError(e, 'NotFound')) throw e;
    await client.create<ClusterVersion>(Resources.clusterVersion, {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: ClusterVersionName },
      spec: { clusterID: randomUUID(), desiredUpdate: update },
    });
  }
}

async function runUpgrade(o: UpgradeOptions, io: CliIo, env: KubeconfigEnvironment): Promise<void> {
  // Read the kubeconfig first: a wrong one fails before the registry is asked anything.
  const kubeconfig = loadKubeconfig(o, env);
  const location = parseLocation('--to-image', o.toImage);
  const release = await withRegistry(o, (client) => {
    const { source, reference } = openSource(location, client);
    return asCliError(`reading release ${o.toImage}`, () => readReleaseImage(source, reference));
  });
  const client = await clusterClient(kubeconfig);
  const update: Update = { image: o.toImage, version: release.payload.version };
  await asCliError('updating ClusterVersion', () => requestUpdate(client, update));
  io.out(`Requested update to release image ${o.toImage} (version ${release.payload.version})\n`);
}

export function upgradeCommand(io: CliIo, env: KubeconfigEnvironment): Command {
  return withRegistryOptions(
    withKubeconfigFlags(new Command('upgrade'))
      .description(
        'Upgrade the cluster to a release image (sets ClusterVersion spec.desiredUpdate)',
      )
      .requiredOption(
        '--to-image <release>',
        'the release image, by digest: REGISTRY/REPO@sha256:…',
      ),
  ).action((o: UpgradeOptions) => runUpgrade(o, io, env));
}
