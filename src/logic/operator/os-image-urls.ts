/**
 * The `machine-config-osimageurl` ConfigMap (docs/reference/operator.md §9.1,
 * docs/reference/upgrade.md §10): the OS images of this
 * release and the release it belongs to. The operator refuses data written for another release,
 * which is how an upgrade waits until the new ConfigMap has landed.
 */
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import { err, ok, type Result } from '../../lib/result.js';

export const OsImageUrlConfigMapName = 'machine-config-osimageurl';

/** All four keys are required, as upstream's ParseOSImageURLConfigMap has them. */
const OsImageUrlKeys = [
  'baseOSContainerImage',
  'baseOSExtensionsContainerImage',
  'osImageURL',
  'releaseVersion',
] as const;

export interface OsImageUrls {
  readonly baseOSContainerImage: string;
  readonly baseOSExtensionsContainerImage: string;
  readonly osImageURL: string;
  readonly releaseVersion: string;
}

export type OsImageUrlError =
  | { readonly kind: 'NotFound'; readonly name: string }
  | { readonly kind: 'MissingKey'; readonly key: string; readonly name: string }
  | { readonly kind: 'VersionMismatch'; readonly found: string; readonly operator: string };

/** Upstream's texts: the lister's NotFound, validateMCOConfigMap, getOsImageURLs. */
export function describeOsImageUrlError(e: OsImageUrlError): string {
  switch (e.kind) {
    case 'NotFound':
      return `configmap ${JSON.stringify(e.name)} not found`;
    case 'MissingKey':
      return `expected missing data key ${JSON.stringify(e.key)} to be present in ConfigMap ${e.name}`;
    case 'VersionMismatch':
      return `refusing to read osImageURL version ${JSON.stringify(e.found)}, operator version ${JSON.stringify(e.operator)}`;
  }
}

/**
 * Reads the ConfigMap (undefined: it does not exist) and checks that it was written for
 * `operatorVersion`, the release the operator itself belongs to.
 */
export function readOsImageUrls(
  cm: ConfigMap | undefined,
  operatorVersion: string,
): Result<OsImageUrls, OsImageUrlError> {
  if (cm === undefined) return err({ kind: 'NotFound', name: OsImageUrlConfigMapName });
  const data = cm.data ?? {};
  for (const key of OsImageUrlKeys) {
    if (data[key] === undefined)
      return err({ kind: 'MissingKey', key, name: cm.metadata.name ?? OsImageUrlConfigMapName });
  }
  const value = (key: (typeof OsImageUrlKeys)[number]): string => data[key] ?? '';
  if (value('releaseVersion') !== operatorVersion)
    return err({
      kind: 'VersionMismatch',
      found: value('releaseVersion'),
      operator: operatorVersion,
    });
  return ok({
    baseOSContainerImage: value('baseOSContainerImage'),
    baseOSExtensionsContainerImage: value('baseOSExtensionsContainerImage'),
    osImageURL: value('osImageURL'),
    releaseVersion: value('releaseVersion'),
  });
}
