/**
 * The ClusterVersion reconciler (key `version`): the cluster-version operator's part of an upgrade
 * that concerns the MCO (docs/reference/upgrade.md §10). When `spec.desiredUpdate.image` names a release not
 * yet accepted, it reads the release payload (the release image's layer), records it as
 * `status.desired` with a Partial history entry, and writes the release's
 * `machine-config-osimageurl` and `machine-config-operator-images` ConfigMaps; the operator then
 * follows the new version (release-config.ts): ControllerConfig gets the new
 * baseOSContainerImage and release-image-version, the ClusterOperator reports Progressing
 * `Working towards <version>` until the required pools are Updated, then the new version. When the
 * ClusterOperator reports it, the history entry is Completed. Worker pools may still be rolling.
 *
 * A payload that cannot be read leaves everything as it was, with ReleaseAccepted=False and the
 * failure, and is retried with backoff.
 */
import type { ClusterOperator } from '../api/config/v1/cluster-operator.js';
import type { ClusterVersion, ClusterVersionStatus } from '../api/config/v1/cluster-version.js';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import { Resources } from '../api/resource-refs.js';
import { OsImageUrlConfigMapName } from '../logic/operator/os-image-urls.js';
import { type Clock } from '../ports/clock.js';
import { rfc3339 } from '../api/meta/v1/time.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { Reconciler, ReconcileResult } from '../runtime/reconciler.js';
import { stringify } from 'safe-stable-stringify';
import {
  acceptRelease,
  completeRelease,
  operatorReports,
  pendingEntry,
  rejectRelease,
} from './cluster-version-status.js';
import {
  operatorImagesData,
  OperatorImagesConfigMapName,
  osImageUrlData,
  type ReleaseImageInfo,
} from '../logic/operator/release-config-maps.js';
import { liveGet } from '../runtime/live-get.js';
import type { ReleasePayloadSource } from '../ports/release-payload-source.js';
import { errorText } from '../lib/error-text.js';

export interface ClusterVersionReconcilerDeps {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly namespace: string;
  readonly payloads: ReleasePayloadSource;
  /** Cache reads: ClusterVersion `version`, ClusterOperator `machine-config`, MCO ConfigMaps. */
  readonly clusterVersion: () => ClusterVersion | undefined;
  readonly clusterOperator: () => ClusterOperator | undefined;
  readonly configMap: (name: string) => ConfigMap | undefined;
}

class ReleasePayloadError extends Error {
  override readonly name = 'ReleasePayloadError';
}

export class ClusterVersionReconciler implements Reconciler {
  readonly #deps: ClusterVersionReconcilerDeps;
  /** Payloads already read, by release image (a pull spec by digest does not change). */
  readonly #payloads = new Map<string, ReleaseImageInfo>();

  constructor(deps: ClusterVersionReconcilerDeps) {
    this.#deps = deps;
  }

  async reconcile(_key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cv = this.#deps.clusterVersion();
    const image = cv?.spec.desiredUpdate?.image;
    if (cv === undefined || image === undefined || image === '') return {};
    const status = cv.status;
    if (status?.desired?.image !== image) {
      await this.#accept(cv, image, signal);
      return {};
    }
    const info = await this.#payload(cv, image, signal);
    await this.#ensureConfigMaps(info, signal);
    const version = status.desired.version ?? '';
    if (
      pendingEntry(status) !== undefined &&
      operatorReports(this.#deps.clusterOperator(), version)
    ) {
      await this.#writeStatus(cv, completeRelease(status, this.#now()), signal);
      this.#deps.log.info('cluster version updated', { version, image });
    }
    return {};
  }

  #now(): string {
    return rfc3339(this.#deps.clock.now());
  }

  async #payload(
    cv: ClusterVersion,
    image: string,
    signal: AbortSignal,
  ): Promise<ReleaseImageInfo> {
    const cached = this.#payloads.get(image);
    if (cached !== undefined) return cached;
    const requested = cv.spec.desiredUpdate?.version ?? '';
    let info: ReleaseImageInfo;
    try {
      info = await this.#deps.payloads.read(image, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      const failure = errorText(e);
      await this.#writeStatus(
        cv,
        rejectRelease(cv.status, { image, version: requested }, failure, this.#now()),
        signal,
      );
      throw new ReleasePayloadError(`release ${image}: ${failure}`, { cause: e });
    }
    this.#payloads.set(image, info);
    return info;
  }

  async #accept(cv: ClusterVersion, image: string, signal: AbortSignal): Promise<void> {
    const info = await this.#payload(cv, image, signal);
    const requested = cv.spec.desiredUpdate?.version;
    if (
      requested !== undefined &&
      requested !== '' &&
      requested !== info.version &&
      cv.spec.desiredUpdate?.force !== true
    ) {
      const failure = `release image version "${info.version}" does not match the requested version "${requested}"`;
      await this.#writeStatus(
        cv,
        rejectRelease(cv.status, { image, version: requested }, failure, this.#now()),
        signal,
      );
      this.#deps.log.warn('release refused', { image, requested, payload: info.version });
      return;
    }
    // ClusterVersion first, then the release's ConfigMaps: the operator stays on the release the
    // ConfigMaps describe until they land (logic/operator/release-versions.ts).
    await this.#writeStatus(
      cv,
      acceptRelease(cv.status, { image, version: info.version }, this.#now()),
      signal,
    );
    await this.#ensureConfigMaps(info, signal);
    this.#deps.log.info('release accepted', {
      version: info.version,
      image,
      osImage: info.osImage,
    });
  }

  async #writeStatus(
    cv: ClusterVersion,
    status: ClusterVersionStatus,
    signal: AbortSignal,
  ): Promise<void> {
    if (stringify(status) === stringify(cv.status ?? {})) return;
    await this.#deps.client.updateStatus<ClusterVersion>(
      Resources.clusterVersion,
      { ...cv, status },
      { signal },
    );
  }

  async #ensureConfigMaps(info: ReleaseImageInfo, signal: AbortSignal): Promise<void> {
    await this.#ensureConfigMap(OsImageUrlConfigMapName, osImageUrlData(info), signal);
    await this.#ensureConfigMap(OperatorImagesConfigMapName, operatorImagesData(info), signal);
  }

  /** Creates or updates a ConfigMap of the MCO namespace to hold exactly `data`. */
  async #ensureConfigMap(
    name: string,
    data: Record<string, string>,
    signal: AbortSignal,
  ): Promise<void> {
    const { client, namespace } = this.#deps;
    const cached = this.#deps.configMap(name);
    if (cached !== undefined && stringify(cached.data ?? {}) === stringify(data)) return;
    const existing = await liveGet<ConfigMap>({
      client,
      ref: Resources.configMap,
      name,
      namespace,
      signal,
    });
    if (existing === undefined) {
      await client.create<ConfigMap>(
        Resources.configMap,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data },
        { signal },
      );
      return;
    }
    if (stringify(existing.data ?? {}) === stringify(data)) return;
    await client.update<ConfigMap>(Resources.configMap, { ...existing, data }, { signal });
  }
}
