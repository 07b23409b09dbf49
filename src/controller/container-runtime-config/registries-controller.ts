/**
 * The registries half of upstream's container runtime config controller
 * (docs/reference/registries.md §1–§2, §5, §8): Image `cluster`, every ImageDigestMirrorSet,
 * ImageTagMirrorSet, ImageContentSourcePolicy, ClusterImagePolicy and ImagePolicy, and the release
 * image become `99-<pool>-generated-registries` for each built-in pool. One key,
 * `openshift-config`, on a single worker; no Image `cluster` or no ClusterVersion `version` means
 * nothing to do. Errors are logged and retried; the only condition written is an ImagePolicy's
 * `Pending` when a ClusterImagePolicy takes some of its scopes, as upstream.
 */
import type { ImagePolicy } from '../../api/config/v1/image-policy.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import { ImageConfigName } from '../../api/config/v1/image.js';
import { Annotation, Label } from '../../api/machineconfiguration/v1/constants.js';
import { Resources } from '../../api/resource-refs.js';
import { kubeletTemplateRole } from '../../logic/kubelet-config/generate-kubelet-config.js';
import {
  generateRegistriesIgnition,
  type RegistriesInputs,
} from '../../logic/registries/generate-registries-config.js';
import { describeSkippedBlocked } from '../../logic/registries/payload-block-lists.js';
import {
  ConflictScopesReason,
  describeConflictScopes,
  ImagePolicyPending,
  scopePolicies,
  type ImagePolicyConflict,
} from '../../logic/registries/sigstore-policies.js';
import {
  registriesConfigName,
  registriesMachineConfig,
  templateRegistriesConf,
} from '../../logic/registries/registries-machine-config.js';
import type { TemplateFile } from '../../logic/template/generate-template-configs.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ApiObject, ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import { objectKey } from '../../runtime/informer.js';
import type { Reconciler } from '../../runtime/reconciler.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { UpstreamRetryLimit, withRetryLimit, type RetryLimit } from '../common/retry-limit.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';
import { errorText } from '../../lib/error-text.js';

const RegistriesControllerName = 'machineconfigcontroller-containerruntimeconfigcontroller';
const ImageConfigKey = 'openshift-config';

export interface RegistriesControllerOptions {
  readonly client: ResourceClient;
  readonly informers: McoInformers;
  readonly templates: readonly TemplateFile[];
  readonly clock: Clock;
  readonly log: Logger;
  readonly version: { readonly raw: string; readonly hash: string };
  readonly retryLimit?: RetryLimit;
  readonly rateLimiter?: RateLimiterOptions;
}

class RegistriesReconciler implements Reconciler {
  readonly #o: RegistriesControllerOptions;
  constructor(options: RegistriesControllerOptions) {
    this.#o = options;
  }

  async reconcile(_key: string, signal: AbortSignal): Promise<undefined> {
    const { informers } = this.#o;
    const image = informers.images.get(ImageConfigName);
    const clusterVersion = informers.clusterVersions.get('version');
    if (image === undefined || clusterVersion === undefined) return undefined;
    const byName = (a: ApiObject, b: ApiObject): number => objectKey(a).localeCompare(objectKey(b));
    const policies = scopePolicies(
      informers.clusterImagePolicies.list().sort(byName),
      informers.imagePolicies.list().sort(byName),
    );
    if (!policies.ok) throw new Error(policies.error);
    for (const conflict of policies.value.conflicts) await this.#markPending(conflict, signal);
    const pools = informers.pools
      .list()
      .filter((p) => p.metadata.labels?.[Label.mcoBuiltIn] !== undefined);
    for (const pool of pools)
      await this.#syncPool(
        pool.metadata.name ?? '',
        {
          image,
          digestMirrorSets: informers.imageDigestMirrorSets.list(),
          tagMirrorSets: informers.imageTagMirrorSets.list(),
          contentSourcePolicies: informers.imageContentSourcePolicies.list(),
          releaseImage: clusterVersion.status?.desired?.image ?? '',
          scopePolicies: policies.value,
        },
        signal,
      );
    return undefined;
  }

  /** One pool's `99-<pool>-generated-registries`, written when it changed. */
  async #syncPool(
    poolName: string,
    shared: Omit<RegistriesInputs, 'baseRegistriesConf'>,
    signal: AbortSignal,
  ): Promise<void> {
    const { informers, client, log, version, templates } = this.#o;
    const generated = generateRegistriesIgnition({
      ...shared,
      baseRegistriesConf: templateRegistriesConf(templates, kubeletTemplateRole(poolName)),
    });
    if (!generated.ok) throw new Error(`could not Create/Update MachineConfig: ${generated.error}`);
    if (generated.value.skippedBlocked.length > 0)
      log.info(describeSkippedBlocked(generated.value.skippedBlocked));
    const existing = informers.machineConfigs.get(registriesConfigName(poolName));
    const ignition = generated.value.ignition as unknown as Record<string, unknown>;
    if (
      existing !== undefined &&
      jsonEqual(existing.spec?.config, ignition) &&
      existing.metadata.annotations?.[Annotation.generatedByControllerVersion] === version.hash
    )
      return;
    const mc = registriesMachineConfig({
      pool: poolName,
      image: { name: shared.image.metadata.name ?? '', uid: shared.image.metadata.uid ?? '' },
      ignition,
      versionHash: version.hash,
      existing,
    });
    try {
      if (existing === undefined) await client.create(Resources.machineConfig, mc, { signal });
      else await client.update(Resources.machineConfig, mc, { signal });
    } catch (e) {
      throw new Error(`could not Create/Update MachineConfig: ${errorText(e)}`, { cause: e });
    }
    log.info('applied registries config', { pool: poolName, machineConfig: mc.metadata.name });
  }

  /**
   * Upstream's syncImagePolicyStatusOnly: the ImagePolicy's conditions become this one. Written
   * only when it differs (upstream writes it on every sync, with a new transition time each time).
   */
  async #markPending(conflict: ImagePolicyConflict, signal: AbortSignal): Promise<void> {
    const { informers, client, clock, log } = this.#o;
    const cached = informers.imagePolicies.get(`${conflict.namespace}/${conflict.name}`);
    if (cached === undefined) return;
    const message = describeConflictScopes(conflict.scopes);
    const generation = cached.metadata.generation ?? 0;
    const current = cached.status?.conditions;
    const same =
      current?.length === 1 &&
      current[0]?.type === ImagePolicyPending &&
      current[0].status === 'False' &&
      current[0].reason === ConflictScopesReason &&
      current[0].message === message &&
      current[0].observedGeneration === generation;
    if (same) return;
    const updated: ImagePolicy = {
      ...cached,
      status: {
        conditions: [
          {
            type: ImagePolicyPending,
            status: 'False',
            reason: ConflictScopesReason,
            message,
            observedGeneration: generation,
            lastTransitionTime: rfc3339(clock.now()),
          },
        ],
      },
    };
    try {
      await client.updateStatus(Resources.imagePolicy, updated, { signal });
    } catch (e) {
      log.warn(`error updating imagepolicy status: ${errorText(e)}`);
    }
  }
}

export function createRegistriesController(options: RegistriesControllerOptions): Controller {
  const { informers, log } = options;
  const controller = new Controller({
    name: `${RegistriesControllerName}-registries`,
    reconciler: withRetryLimit(
      new RegistriesReconciler(options),
      options.retryLimit ?? UpstreamRetryLimit,
      log,
    ),
    clock: options.clock,
    log,
    workers: 1,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  waitForCache(controller, informers.machineConfigs);
  waitForCache(controller, informers.controllerConfigs);
  const toKey = { map: (): string[] => [ImageConfigKey] };
  return controller
    .watch(informers.images, toKey)
    .watch(informers.imageDigestMirrorSets, toKey)
    .watch(informers.imageTagMirrorSets, toKey)
    .watch(informers.imageContentSourcePolicies, toKey)
    .watch(informers.clusterImagePolicies, toKey)
    .watch(informers.imagePolicies, toKey)
    .watch(informers.clusterVersions, toKey)
    .watch(informers.pools, toKey);
}
