/**
 * Reads release images for the operator (the ReleasePayloadSource port,
 * src/ports/release-payload-source.ts): pulls the payload with a fresh registry client per read
 * and picks the components the MCO consumes.
 */
import type { ReleaseImageInfo } from '../../logic/operator/release-config-maps.js';
import type { ReleasePayloadSource } from '../../ports/release-payload-source.js';
import { openSource } from './image-locations.js';
import { readReleaseImage } from './release-image.js';
import { componentImage, ReleaseComponent, type ReleasePayload } from './release-payload.js';
import { createRegistryClient, type RegistrySettings } from './registry-settings.js';

/** The MCO's components of a payload; a release without an OS image is refused. */
function releaseComponents(payload: ReleasePayload): ReleaseImageInfo {
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

export function createRegistryReleaseSource(settings: RegistrySettings): ReleasePayloadSource {
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
