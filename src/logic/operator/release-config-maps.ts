/**
 * What a release image lists for the MCO and the two ConfigMaps the release carries for it
 * (docs/reference/upgrade.md §10.1): `machine-config-osimageurl` (the OS images) and
 * `machine-config-operator-images` (the operator image). The operator writes them when it accepts
 * a release, and `mco manifests` ships them for the release this build is. Pure.
 */

/** The components of a release image the MCO reads. */
export interface ReleaseImageInfo {
  readonly version: string;
  /** The `rhel-coreos` component: the OS image every pool's rendered config boots. */
  readonly osImage: string;
  /** The `rhel-coreos-extensions` component (empty when the release has none). */
  readonly osExtensionsImage: string;
  /** The `machine-config-operator` component, when the release lists one. */
  readonly operatorImage?: string;
}

export const OperatorImagesConfigMapName = 'machine-config-operator-images';
const OperatorImagesKey = 'images.json';

/** `machine-config-osimageurl` for a release (all four keys, as the operator requires). */
export function osImageUrlData(info: ReleaseImageInfo): Record<string, string> {
  return {
    baseOSContainerImage: info.osImage,
    baseOSExtensionsContainerImage: info.osExtensionsImage,
    osImageURL: '',
    releaseVersion: info.version,
  };
}

/** `machine-config-operator-images` for a release: images.json with the operator image. */
export function operatorImagesData(info: ReleaseImageInfo): Record<string, string> {
  const images = {
    releaseVersion: info.version,
    ...(info.operatorImage === undefined ? {} : { machineConfigOperator: info.operatorImage }),
  };
  return { [OperatorImagesKey]: JSON.stringify(images) };
}

/** The operator image `images.json` names for `version`, if it was written for that release. */
export function operatorImageFor(
  data: Readonly<Record<string, string>> | undefined,
  version: string,
): string | undefined {
  const text = data?.[OperatorImagesKey];
  if (text === undefined) return undefined;
  try {
    const doc = JSON.parse(text) as { releaseVersion?: unknown; machineConfigOperator?: unknown };
    return doc.releaseVersion === version && typeof doc.machineConfigOperator === 'string'
      ? doc.machineConfigOperator
      : undefined;
  } catch {
    return undefined;
  }
}
