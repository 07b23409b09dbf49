/**
 * Reads release images for the operator (its ReleasePayloadSource, src/operator/
 * release-payload-source.ts, matched structurally: adapters do not import the operator): pulls
 * the payload with a fresh registry client per read and picks the components the MCO consumes.
 */
import { openSource } from './image-locations.js';
import { readReleaseImage } from './release-image.js';
import { componentImage, ReleaseComponent, type ReleasePayload } from './release-payload.js';
import { createRegistryClient, type RegistrySettings } from './registry-settings.js';

export interface ReleaseComponents {
  readonly version: string;
  readonly osImage: string;
  readonly osExtensionsImage: string;
  readonly operatorImage?: string;
}

/** The MCO's components of a payload; a release without an OS image is refused. */
function releaseComponents(payload: ReleasePayload): ReleaseComponents {
  const osImage = componentImage(payload, ReleaseComponent.os);
  if (osImage === undefined || osImage === '')
    throw new Error(`release ${payload.version} lists no ${ReleaseComponent.os} image`);
  const operatorImage = componentImage(payload, ReleaseComponent.operator);
  return {
    version: payload.version,
    osImage,
    osExtensionsImage: componentImage(payload, ReleaseComponent.osExtensions) ?? '',
    ...(operatorImage === undefined ? {} : { operatorImage }),
  };
}

export function createRegistryReleaseSource(settings: RegistrySettings): {
  read(image: string, signal: AbortSignal): Promise<ReleaseComponents>;
} {
  return {
    async read(image, signal) {
      const client = await createRegistryClient(settings);
      try {
        const { source, reference } = openSource(image, client);
        const release = await readReleaseImage(source, reference, signal);
        return releaseComponents(release.payload);
      } finally {
        client.close();
      }
    },
  };
}
