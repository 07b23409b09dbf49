/**
 * The registries documents among `mco render` / `mco bootstrap` inputs, and the generated
 * `99-<pool>-generated-registries` configs they give (docs/reference/registries.md §7), so the
 * offline tools render the mirror config the cluster would.
 */
import type { ClusterImagePolicy } from '../api/config/v1/cluster-image-policy.js';
import type { ClusterVersion } from '../api/config/v1/cluster-version.js';
import type { ImagePolicy } from '../api/config/v1/image-policy.js';
import type { ImageDigestMirrorSet } from '../api/config/v1/image-digest-mirror-set.js';
import type { ImageTagMirrorSet } from '../api/config/v1/image-tag-mirror-set.js';
import type { Image } from '../api/config/v1/image.js';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { ImageContentSourcePolicy } from '../api/operator/v1alpha1/image-content-source-policy.js';
import type { ManifestObject } from '../lib/manifests.js';
import {
  hasRegistriesDocuments,
  offlineRegistriesMachineConfigs,
  type RegistriesDocuments,
} from '../logic/registries/registries-machine-config.js';
import type { TemplateFile } from '../logic/template/generate-template-configs.js';
import { CliError } from '../shell/cli-io.js';

function ofKind<T>(objects: readonly ManifestObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as unknown as T[];
}

function registriesDocumentsOf(objects: readonly ManifestObject[]): RegistriesDocuments {
  return {
    image: ofKind<Image>(objects, 'Image').find((i) => i.metadata.name === 'cluster'),
    digestMirrorSets: ofKind<ImageDigestMirrorSet>(objects, 'ImageDigestMirrorSet'),
    tagMirrorSets: ofKind<ImageTagMirrorSet>(objects, 'ImageTagMirrorSet'),
    contentSourcePolicies: ofKind<ImageContentSourcePolicy>(objects, 'ImageContentSourcePolicy'),
    clusterImagePolicies: ofKind<ClusterImagePolicy>(objects, 'ClusterImagePolicy'),
    imagePolicies: ofKind<ImagePolicy>(objects, 'ImagePolicy'),
  };
}

export interface RegistriesConfigsInput {
  readonly objects: readonly ManifestObject[];
  readonly controllerConfig: ControllerConfig;
  readonly pools: readonly string[];
  readonly templates: () => readonly TemplateFile[];
  readonly versionHash?: string;
}

/**
 * The generated configs, or none when the inputs hold no registries documents. The release image
 * is a ClusterVersion's `status.desired.image` when one is given, else the ControllerConfig's.
 */
export function generatedRegistriesConfigs(input: RegistriesConfigsInput): MachineConfig[] {
  const documents = registriesDocumentsOf(input.objects);
  if (!hasRegistriesDocuments(documents)) return [];
  const clusterVersion = ofKind<ClusterVersion>(input.objects, 'ClusterVersion')[0];
  const releaseImage =
    clusterVersion?.status?.desired?.image ?? input.controllerConfig.spec.releaseImage ?? '';
  const generated = offlineRegistriesMachineConfigs({
    documents,
    pools: input.pools,
    releaseImage,
    templates: input.templates(),
    versionHash: input.versionHash,
  });
  if (!generated.ok)
    throw new CliError(
      releaseImage === ''
        ? `${generated.error} (give the release image as the ControllerConfig's spec.releaseImage or a ClusterVersion's status.desired.image)`
        : generated.error,
    );
  return generated.value;
}
