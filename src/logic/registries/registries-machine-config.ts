/**
 * The `99-<pool>-generated-registries` MachineConfigs as objects (docs/reference/registries.md §2,
 * §7): shared by the registries controller, `mco render` and `mco bootstrap`, so the offline tools
 * show the config the cluster will write. Pure.
 */
import { parse as parseYaml } from 'yaml';
import { ConfigGroup } from '../../api/config/v1/cluster-operator.js';
import { Annotation, Label } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { ClusterImagePolicy } from '../../api/config/v1/cluster-image-policy.js';
import type { ImageDigestMirrorSet } from '../../api/config/v1/image-digest-mirror-set.js';
import type { ImagePolicy } from '../../api/config/v1/image-policy.js';
import type { ImageTagMirrorSet } from '../../api/config/v1/image-tag-mirror-set.js';
import type { Image } from '../../api/config/v1/image.js';
import type { ImageContentSourcePolicy } from '../../api/operator/v1alpha1/image-content-source-policy.js';
import { err, ok, type Result } from '../../lib/result.js';
import { kubeletTemplateRole } from '../kubelet-config/generate-kubelet-config.js';
import type { TemplateFile } from '../template/generate-template-configs.js';
import { generateRegistriesIgnition } from './generate-registries-config.js';
import { scopePolicies } from './sigstore-policies.js';

/** The generated config's name for a pool. */
export function registriesConfigName(pool: string): string {
  return `99-${pool}-generated-registries`;
}

/** A registries.conf every role's template can fall back to (upstream's base file). */
const FallbackRegistriesConf =
  'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\n';

/** The role template's registries.conf (`01-<role>-container-runtime/_base/files/registries.yaml`). */
export function templateRegistriesConf(templates: readonly TemplateFile[], role: string): string {
  const suffix = `${role}/01-${role}-container-runtime/_base/files/registries.yaml`;
  const file = templates.find((t) => t.path === suffix || t.path.endsWith(`/${suffix}`));
  if (file === undefined) return FallbackRegistriesConf;
  const parsed = parseYaml(file.content) as { contents?: { inline?: unknown } } | null;
  const inline = parsed?.contents?.inline;
  return typeof inline === 'string' ? inline : FallbackRegistriesConf;
}

/** The generated MachineConfig as upstream writes it: annotations replaced, owned by the Image. */
export function registriesMachineConfig({
  pool,
  image,
  ignition,
  versionHash,
  existing,
}: {
  readonly pool: string;
  readonly image: { name: string; uid: string };
  readonly ignition: Record<string, unknown>;
  readonly versionHash: string | undefined;
  readonly existing?: MachineConfig | undefined;
}): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      ...(existing?.metadata ?? {}),
      name: registriesConfigName(pool),
      labels: { ...existing?.metadata.labels, [Label.role]: pool },
      annotations:
        versionHash === undefined ? {} : { [Annotation.generatedByControllerVersion]: versionHash },
      ownerReferences: [
        { apiVersion: `${ConfigGroup}/v1`, kind: 'Image', name: image.name, uid: image.uid },
      ],
    },
    spec: { ...existing?.spec, config: ignition },
  };
}

/** The registries inputs found among a folder's manifests (by kind). */
export interface RegistriesDocuments {
  readonly image?: Image | undefined;
  readonly digestMirrorSets: readonly ImageDigestMirrorSet[];
  readonly tagMirrorSets: readonly ImageTagMirrorSet[];
  readonly contentSourcePolicies: readonly ImageContentSourcePolicy[];
  readonly clusterImagePolicies: readonly ClusterImagePolicy[];
  readonly imagePolicies: readonly ImagePolicy[];
}

export function hasRegistriesDocuments(docs: RegistriesDocuments): boolean {
  return (
    docs.image !== undefined ||
    docs.digestMirrorSets.length +
      docs.tagMirrorSets.length +
      docs.contentSourcePolicies.length +
      docs.clusterImagePolicies.length +
      docs.imagePolicies.length >
      0
  );
}

export interface OfflineRegistriesInput {
  readonly documents: RegistriesDocuments;
  readonly pools: readonly string[];
  readonly releaseImage: string;
  readonly templates: readonly TemplateFile[];
  /** The cluster's annotation (render); bootstrap writes none, as upstream. */
  readonly versionHash?: string | undefined;
}

/** One generated config per pool, or an error in the controller's words. */
export function offlineRegistriesMachineConfigs(
  input: OfflineRegistriesInput,
): Result<MachineConfig[], string> {
  const { documents } = input;
  const image: Image = documents.image ?? {
    apiVersion: `${ConfigGroup}/v1`,
    kind: 'Image',
    metadata: { name: '' },
    spec: {},
  };
  const policies = scopePolicies(documents.clusterImagePolicies, documents.imagePolicies);
  if (!policies.ok) return policies;
  const out: MachineConfig[] = [];
  for (const pool of input.pools) {
    const generated = generateRegistriesIgnition({
      image,
      digestMirrorSets: documents.digestMirrorSets,
      tagMirrorSets: documents.tagMirrorSets,
      contentSourcePolicies: documents.contentSourcePolicies,
      releaseImage: input.releaseImage,
      baseRegistriesConf: templateRegistriesConf(input.templates, kubeletTemplateRole(pool)),
      scopePolicies: policies.value,
    });
    if (!generated.ok) return err(`could not Create/Update MachineConfig: ${generated.error}`);
    out.push(
      registriesMachineConfig({
        pool,
        image: { name: image.metadata.name ?? '', uid: image.metadata.uid ?? '' },
        ignition: generated.value.ignition,
        versionHash: input.versionHash,
      }),
    );
  }
  return ok(out);
}
