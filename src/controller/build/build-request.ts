/**
 * What one On-Cluster Layering build is (docs/layering.md; docs/reference/image-mode.md §5–6):
 * the MachineOSBuild's name and push spec, the Containerfile buildah runs, and the build's
 * context. Pure: the build controller decides with it, the builder adapter runs it.
 *
 * The Containerfile follows upstream's template where the box can: a `configs` stage `FROM` the
 * rendered config's osImageURL that carries the rendered MachineConfig at
 * `/etc/machine-config-daemon/currentconfig` and the `machineconfig`, `machineconfigpool` and
 * `baseOSContainerImage` labels, then the administrator's content verbatim (expected to begin
 * `FROM configs AS final`; without a FROM it continues the `configs` stage). Upstream also runs
 * Ignition inside the image to bake the config's files in; our images have no Ignition, so the
 * daemon keeps writing files and units itself (docs/adr/0023-bootable-container-os-images.md).
 */
import { createHash } from 'node:crypto';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineOSConfig } from '../../api/machineconfiguration/v1/machine-os-config.js';

/** The build context's files, relative to the context folder. */
const BuildContextFile = {
  containerfile: 'Containerfile',
  machineConfig: 'machineconfig/machineconfig.json',
} as const;

export interface BuildRequest {
  /** The MachineOSBuild's name: `<mosc>-<md5 hex>`. */
  readonly name: string;
  readonly pool: string;
  readonly renderedConfig: string;
  readonly baseImage: string;
  /** The MachineOSConfig's push spec with the build's name as its tag. */
  readonly pushSpec: string;
  readonly containerfile: string;
  /** Every file of the build context (the Containerfile among them). */
  readonly context: Readonly<Record<string, string>>;
}

/** `repo:tag` → `repo:<tag>`; the tag is whatever follows the last `:` after the last `/`. */
export function pushSpecWithTag(spec: string, tag: string): string {
  const slash = spec.lastIndexOf('/');
  const colon = spec.lastIndexOf(':');
  const repo = colon > slash ? spec.slice(0, colon) : spec;
  return `${repo}:${tag}`;
}

/** `repo:tag` → `repo@digest` (where a pushed image is pulled from). */
export function pushSpecWithDigest(spec: string, digest: string): string {
  const slash = spec.lastIndexOf('/');
  const colon = spec.lastIndexOf(':');
  return `${colon > slash ? spec.slice(0, colon) : spec}@${digest}`;
}

/** The administrator's Containerfile: the `NoArch` entry (the only one upstream builds). */
function userContainerfile(mosc: MachineOSConfig): string | undefined {
  const entry = (mosc.spec.containerFile ?? []).find(
    (c) => (c.containerfileArch ?? 'NoArch') === 'NoArch',
  );
  return entry?.content;
}

/** A label value as a Containerfile string. */
const quoted = (text: string): string => JSON.stringify(text);

function finalContainerfile(o: {
  readonly baseImage: string;
  readonly renderedConfig: string;
  readonly pool: string;
  readonly userContent: string;
}): string {
  return [
    '# Written by the machine-config-controller build controller; the last stage is the administrator’s.',
    `FROM ${o.baseImage} AS configs`,
    `COPY ${BuildContextFile.machineConfig} /etc/machine-config-daemon/currentconfig`,
    `LABEL machineconfig=${quoted(o.renderedConfig)}`,
    `LABEL machineconfigpool=${quoted(o.pool)}`,
    `LABEL baseOSContainerImage=${quoted(o.baseImage)}`,
    '',
    o.userContent.trimEnd(),
    '',
  ].join('\n');
}

/**
 * The build of `rendered` FROM `baseImage` (default: its osImageURL) for `mosc`: named by a hash
 * of everything that makes the image (the rendered config's content but its osImageURL, the base
 * image, the MachineOSConfig's spec), so the same inputs never build twice and any change builds
 * anew; a rendered config that differs only by pointing at the built image builds nothing.
 */
export function buildRequest(
  mosc: MachineOSConfig,
  rendered: MachineConfig,
  base?: string,
): BuildRequest {
  const renderedName = rendered.metadata.name ?? '';
  const baseImage = base ?? rendered.spec?.osImageURL ?? '';
  if (baseImage === '') throw new Error(`${renderedName} has no osImageURL to build from`);
  const user = userContainerfile(mosc) ?? '';
  const hash = createHash('md5')
    .update(JSON.stringify([{ ...rendered.spec, osImageURL: '' }, baseImage, mosc.spec]))
    .digest('hex');
  const name = `${mosc.metadata.name ?? mosc.spec.machineConfigPool.name}-${hash}`;
  const containerfile = finalContainerfile({
    baseImage,
    renderedConfig: renderedName,
    pool: mosc.spec.machineConfigPool.name,
    userContent: user,
  });
  return {
    name,
    pool: mosc.spec.machineConfigPool.name,
    renderedConfig: renderedName,
    baseImage,
    pushSpec: pushSpecWithTag(mosc.spec.renderedImagePushSpec, name),
    containerfile,
    context: {
      [BuildContextFile.containerfile]: containerfile,
      [BuildContextFile.machineConfig]: `${JSON.stringify(rendered)}\n`,
    },
  };
}
