/**
 * What the ClusterVersion reconciler reads from a release image: the release version and the
 * component images the MCO consumes. The registry-backed implementation lives with the OCI client
 * (src/adapters/oci/release-source.ts); cli/operator-command.ts passes it in.
 */

export interface ReleaseImageInfo {
  readonly version: string;
  /** The `rhel-coreos` component: the OS image every pool's rendered config boots. */
  readonly osImage: string;
  /** The `rhel-coreos-extensions` component (empty when the release has none). */
  readonly osExtensionsImage: string;
  /** The `machine-config-operator` component, when the release lists one. */
  readonly operatorImage?: string;
}

export interface ReleasePayloadSource {
  read(image: string, signal: AbortSignal): Promise<ReleaseImageInfo>;
}
