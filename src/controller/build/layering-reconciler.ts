/**
 * On-Cluster Layering for one pool (docs/layering.md; docs/reference/image-mode.md §4–7): with a
 * MachineOSConfig named like the pool, the pool's rendered config gets a MachineOSBuild (named by
 * what makes the image, build-request.ts), the build runs through the OsImageBuilder while the
 * build's conditions move Prepared → Building → Succeeded or Failed, and only a Succeeded build
 * rolls the pool: the MachineConfig `99-<pool>-machine-os-image` points the pool's osImageURL at
 * the pushed image by digest, the render controller renders it, and the node controller rolls it
 * out within maxUnavailable as any OS change. A failed build writes nothing, so no node is
 * touched. Deleting the MachineOSConfig deletes that MachineConfig and the builds, so the pool
 * renders its plain image again.
 *
 * Upstream instead targets nodes with a `desiredImage` annotation beside `desiredConfig`; an
 * osImageURL override rides on the rollout machinery every pool already has (maxUnavailable,
 * pausing, drains, Degraded) and is what `ostree admin status` then shows
 * (docs/adr/0023-bootable-container-os-images.md). The base image of a build is the rendered
 * osImageURL unless that is our own override, whose annotation keeps the base it was built from,
 * so a rendered config that only points at the built image does not build again.
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  MachineOSBuildCondition,
  MachineOSBuildPhases,
  type MachineOSBuild,
  type MachineOSBuildPhase,
} from '../../api/machineconfiguration/v1/machine-os-build.js';
import type { MachineOSConfig } from '../../api/machineconfiguration/v1/machine-os-config.js';
import type { Condition } from '../../api/meta/v1/condition.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { OsImageBuilder } from '../../ports/os-image-builder.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../../ports/resource-client.js';
import { buildRequest, pushSpecWithDigest, type BuildRequest } from './build-request.js';

const BuildLabel = {
  pool: 'machineconfiguration.openshift.io/target-machine-config-pool',
  renderedConfig: 'machineconfiguration.openshift.io/rendered-machine-config',
  machineOSConfig: 'machineconfiguration.openshift.io/machine-os-config',
} as const;

export const BuildAnnotation = {
  currentBuild: 'machineconfiguration.openshift.io/current-machine-os-build',
  /** On a MachineOSConfig: build its current inputs again (cleared once the new build exists). */
  rebuild: 'machineconfiguration.openshift.io/rebuild',
  /** On the layered-image MachineConfig: the image its build was FROM. */
  baseImage: 'machineconfiguration.openshift.io/base-os-image',
} as const;

/** The MachineConfig that points a layered pool at its built image. */
export const layeredImageConfigName = (pool: string): string => `99-${pool}-machine-os-image`;

export interface LayeringDeps {
  readonly client: ResourceClient;
  readonly builder: OsImageBuilder;
  readonly clock: Clock;
  readonly log: Logger;
}

async function getOrUndefined<T extends ApiObject>(
  client: ResourceClient,
  ref: ResourceRef,
  name: string,
  signal: AbortSignal,
): Promise<T | undefined> {
  try {
    return await client.get<T>(ref, name, undefined, signal);
  } catch (e) {
    if (isStatusError(e, 'NotFound')) return undefined;
    throw e;
  }
}

/** The five conditions with `phase` True (none True for undefined), as upstream always lists. */
function buildConditions(
  phase: MachineOSBuildPhase | undefined,
  now: string,
  previous: readonly Condition[] = [],
): Condition[] {
  return MachineOSBuildPhases.map((type) => {
    const status = type === phase ? 'True' : 'False';
    const before = previous.find((c) => c.type === type);
    const { reason, message } = MachineOSBuildCondition[type];
    return {
      type,
      status,
      reason,
      message,
      lastTransitionTime:
        before !== undefined && before.status === status ? before.lastTransitionTime : now,
    };
  });
}

/** The phase whose condition is True. */
export function buildPhase(mosb: MachineOSBuild): MachineOSBuildPhase | undefined {
  return MachineOSBuildPhases.find(
    (p) => mosb.status?.conditions?.find((c) => c.type === p)?.status === 'True',
  );
}

export class LayeringReconciler {
  readonly #d: LayeringDeps;
  /** Builds running in this process, by MachineOSBuild name. */
  readonly #running = new Set<string>();

  constructor(deps: LayeringDeps) {
    this.#d = deps;
  }

  #now(): string {
    return rfc3339(this.#d.clock.now());
  }

  async reconcile(pool: string, signal: AbortSignal): Promise<void> {
    const { client } = this.#d;
    const mosc = await getOrUndefined<MachineOSConfig>(
      client,
      Resources.machineOSConfig,
      pool,
      signal,
    );
    if (mosc === undefined || mosc.metadata.deletionTimestamp !== undefined) {
      await this.#revert(pool, signal);
      return;
    }
    if (mosc.spec.machineConfigPool.name !== pool)
      throw new Error(
        `MachineOSConfig ${pool}: name must match the referenced MachineConfigPool name (${mosc.spec.machineConfigPool.name})`,
      );
    const mcp = await getOrUndefined<MachineConfigPool>(
      client,
      Resources.machineConfigPool,
      pool,
      signal,
    );
    const renderedName = mcp?.spec?.configuration?.name;
    if (renderedName === undefined || renderedName === '') return;
    const rendered = await client.get<MachineConfig>(
      Resources.machineConfig,
      renderedName,
      undefined,
      signal,
    );
    const override = await getOrUndefined<MachineConfig>(
      client,
      Resources.machineConfig,
      layeredImageConfigName(pool),
      signal,
    );
    const ours =
      override?.spec?.osImageURL !== undefined &&
      override.spec.osImageURL === rendered.spec?.osImageURL;
    const base = ours ? override.metadata.annotations?.[BuildAnnotation.baseImage] : undefined;
    const request = buildRequest(mosc, rendered, base);
    const wanted =
      mosc.metadata.annotations?.[BuildAnnotation.rebuild] === undefined
        ? mosc
        : await this.#startOver(mosc, request.name, signal);
    let mosb = await this.#ensureBuild(wanted, request, signal);
    const phase = buildPhase(mosb);
    if (phase === 'Prepared' && !this.#running.has(request.name))
      mosb = await this.#runBuild(mosb, request, signal);
    else if (phase === 'Building' && !this.#running.has(request.name))
      mosb = await this.#orphaned(mosb, signal);
    if (buildPhase(mosb) === 'Succeeded')
      await this.#rollTo({ mosc: wanted, mosb, request, override, signal });
  }

  async #ensureBuild(
    mosc: MachineOSConfig,
    request: BuildRequest,
    signal: AbortSignal,
  ): Promise<MachineOSBuild> {
    const { client } = this.#d;
    const have = await getOrUndefined<MachineOSBuild>(
      client,
      Resources.machineOSBuild,
      request.name,
      signal,
    );
    if (have !== undefined) return have;
    const created = await client.create<MachineOSBuild>(
      Resources.machineOSBuild,
      {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineOSBuild',
        metadata: {
          name: request.name,
          labels: {
            [BuildLabel.pool]: request.pool,
            [BuildLabel.renderedConfig]: request.renderedConfig,
            [BuildLabel.machineOSConfig]: mosc.metadata.name ?? request.pool,
          },
          ownerReferences: [
            {
              apiVersion: 'machineconfiguration.openshift.io/v1',
              kind: 'MachineOSConfig',
              name: mosc.metadata.name ?? request.pool,
              uid: mosc.metadata.uid ?? '',
              controller: true,
            },
          ],
        },
        spec: {
          machineConfig: { name: request.renderedConfig },
          machineOSConfig: { name: mosc.metadata.name ?? request.pool },
          renderedImagePushSpec: request.pushSpec,
        },
      },
      { signal },
    );
    this.#d.log.info('created MachineOSBuild', { build: request.name, pool: request.pool });
    return this.#setStatus(
      created,
      { conditions: buildConditions('Prepared', this.#now()) },
      signal,
    );
  }

  async #setStatus(
    mosb: MachineOSBuild,
    status: NonNullable<MachineOSBuild['status']>,
    signal: AbortSignal,
  ): Promise<MachineOSBuild> {
    return this.#d.client.updateStatus<MachineOSBuild>(
      Resources.machineOSBuild,
      { ...mosb, status: { ...mosb.status, ...status } },
      { signal },
    );
  }

  async #runBuild(
    mosb: MachineOSBuild,
    request: BuildRequest,
    signal: AbortSignal,
  ): Promise<MachineOSBuild> {
    const { builder, log } = this.#d;
    this.#running.add(request.name);
    try {
      let current = await this.#setStatus(
        mosb,
        {
          conditions: buildConditions('Building', this.#now(), mosb.status?.conditions),
          buildStart: this.#now(),
          builder: { imageBuilderType: 'Job' },
        },
        signal,
      );
      log.info('building layered OS image', { build: request.name, from: request.baseImage });
      let phase: MachineOSBuildPhase;
      let digested: string | undefined;
      try {
        const { digest } = await builder.build(
          { name: request.name, context: request.context, pushSpec: request.pushSpec },
          signal,
        );
        phase = 'Succeeded';
        digested = pushSpecWithDigest(request.pushSpec, digest);
      } catch (e) {
        if (signal.aborted) phase = 'Interrupted';
        else phase = 'Failed';
        log.warn('MachineOSBuild failed', { build: request.name, error: (e as Error).message });
      }
      // Recorded even when the controller is stopping (an interrupted build says so).
      const record = new AbortController().signal;
      current = await this.#d.client.get<MachineOSBuild>(
        Resources.machineOSBuild,
        request.name,
        undefined,
        record,
      );
      return await this.#setStatus(
        current,
        {
          conditions: buildConditions(phase, this.#now(), current.status?.conditions),
          buildEnd: this.#now(),
          ...(digested === undefined ? {} : { digestedImagePushSpec: digested }),
        },
        record,
      );
    } finally {
      this.#running.delete(request.name);
    }
  }

  /**
   * The administrator asked for a rebuild: the build of these inputs goes (unless it is running
   * here, which the rebuild then waits for), so a new one is prepared and run; the annotation is
   * cleared, as upstream clears it. The MachineOSConfig as updated.
   */
  async #startOver(
    mosc: MachineOSConfig,
    build: string,
    signal: AbortSignal,
  ): Promise<MachineOSConfig> {
    const { client, log } = this.#d;
    if (this.#running.has(build)) return mosc;
    await client
      .delete(Resources.machineOSBuild, build, undefined, { signal })
      .catch((e: unknown) => {
        if (!isStatusError(e, 'NotFound')) throw e;
      });
    const annotations = Object.fromEntries(
      Object.entries(mosc.metadata.annotations ?? {}).filter(
        ([k]) => k !== BuildAnnotation.rebuild,
      ),
    );
    log.info('rebuild requested: building again', {
      build,
      pool: mosc.spec.machineConfigPool.name,
    });
    return client.update<MachineOSConfig>(
      Resources.machineOSConfig,
      { ...mosc, metadata: { ...mosc.metadata, annotations } },
      { signal },
    );
  }

  /**
   * Building, but not in this process: the controller that ran it was killed (its build process
   * went with it, in its process group) or it ran on a leader that is gone. Nothing will finish
   * it, so it is recorded as upstream records a build whose Job vanished: Interrupted.
   */
  async #orphaned(mosb: MachineOSBuild, signal: AbortSignal): Promise<MachineOSBuild> {
    this.#d.log.warn('MachineOSBuild was building in a controller that is gone: interrupted', {
      build: mosb.metadata.name,
    });
    return this.#setStatus(
      mosb,
      {
        conditions: buildConditions('Interrupted', this.#now(), mosb.status?.conditions),
        buildEnd: this.#now(),
      },
      signal,
    );
  }

  async #rollTo({
    mosc,
    mosb,
    request,
    override,
    signal,
  }: {
    readonly mosc: MachineOSConfig;
    readonly mosb: MachineOSBuild;
    readonly request: BuildRequest;
    readonly override: MachineConfig | undefined;
    readonly signal: AbortSignal;
  }): Promise<void> {
    const { client, log } = this.#d;
    const image = mosb.status?.digestedImagePushSpec;
    if (image === undefined) return;
    const name = layeredImageConfigName(request.pool);
    const wanted: MachineConfig = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: {
        ...(override?.metadata ?? {}),
        name,
        labels: { 'machineconfiguration.openshift.io/role': request.pool },
        annotations: {
          ...(override?.metadata.annotations ?? {}),
          [BuildAnnotation.baseImage]: request.baseImage,
          [BuildAnnotation.currentBuild]: mosb.metadata.name ?? request.name,
        },
      },
      spec: { osImageURL: image },
    };
    if (override === undefined) {
      await client.create(Resources.machineConfig, wanted, { signal });
      log.info('rolling the pool to its layered image', { pool: request.pool, image });
    } else if (
      override.spec?.osImageURL !== image ||
      override.metadata.annotations?.[BuildAnnotation.baseImage] !== request.baseImage
    ) {
      await client.update(Resources.machineConfig, wanted, { signal });
      log.info('rolling the pool to its layered image', { pool: request.pool, image });
    }
    if (
      mosc.status?.currentImagePullSpec !== image ||
      mosc.metadata.annotations?.[BuildAnnotation.currentBuild] !== mosb.metadata.name
    ) {
      const annotated = await client.update<MachineOSConfig>(
        Resources.machineOSConfig,
        {
          ...mosc,
          metadata: {
            ...mosc.metadata,
            annotations: {
              ...(mosc.metadata.annotations ?? {}),
              [BuildAnnotation.currentBuild]: mosb.metadata.name ?? request.name,
            },
          },
        },
        { signal },
      );
      await client.updateStatus<MachineOSConfig>(
        Resources.machineOSConfig,
        {
          ...annotated,
          status: {
            ...annotated.status,
            observedGeneration: annotated.metadata.generation ?? 1,
            currentImagePullSpec: image,
            machineOSBuild: {
              group: 'machineconfiguration.openshift.io',
              resource: 'machineosbuilds',
              name: mosb.metadata.name ?? request.name,
            },
          },
        },
        { signal },
      );
    }
  }

  /** No MachineOSConfig: the pool's plain image again, and no builds left. */
  async #revert(pool: string, signal: AbortSignal): Promise<void> {
    const { client, log } = this.#d;
    const name = layeredImageConfigName(pool);
    if (await getOrUndefined(client, Resources.machineConfig, name, signal)) {
      await client.delete(Resources.machineConfig, name, undefined, { signal });
      log.info('MachineOSConfig gone: the pool goes back to its plain image', { pool });
    }
    const builds = await client.list<MachineOSBuild>(Resources.machineOSBuild, {
      labelSelector: `${BuildLabel.machineOSConfig}=${pool}`,
      signal,
    });
    // The selector asks the server; the filter keeps a server that ignores it honest.
    for (const b of builds.items.filter(
      (i) => i.metadata.labels?.[BuildLabel.machineOSConfig] === pool,
    ))
      await client
        .delete(Resources.machineOSBuild, b.metadata.name ?? '', undefined, { signal })
        .catch((e: unknown) => {
          if (!isStatusError(e, 'NotFound')) throw e;
        });
  }
}
