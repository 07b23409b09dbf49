/**
 * What the ClusterVersion reconciler reads from a release image: the release version and the
 * component images the MCO consumes. The registry-backed implementation lives with the OCI client
 * (src/adapters/oci/release-source.ts); cli/operator-command.ts passes it in.
 */
import type { ReleaseImageInfo } from '../logic/operator/release-config-maps.js';

export interface ReleasePayloadSource {
  read(image: string, signal: AbortSignal): Promise<ReleaseImageInfo>;
}
