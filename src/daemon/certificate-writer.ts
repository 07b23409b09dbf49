/**
 * The daemon's certificate writer (upstream `pkg/daemon/certificate_writer.go`,
 * docs/reference/certificates.md §2–3, docs/certificates.md): beside the update loop,
 * its own ControllerConfig informer and single-worker queue. When the ControllerConfig moves (or
 * asks for a server CA rotation), it writes the kubelet CA, the cloud CA bundle, the internal
 * registry pull secret and the image registry CAs in place, through the host's root, without a
 * drain or a reboot, and records the ControllerConfig's resourceVersion on the Node. The update
 * path skips these files (file-writes.ts), so the two never fight over them.
 *
 * What to write is decided by planCertificateWrites; this only does it. A failure is logged, sent
 * as a Warning event and retried with backoff; the node's update state is left alone (the
 * writer's files never take part in a rollout).
 */
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import { ControllerConfigName } from '../api/machineconfiguration/v1/constants.js';
import { Resources } from '../api/resource-refs.js';
import {
  certificatesOutOfDate,
  describeCertificateWritesError,
  planCertificateWrites,
} from '../logic/certificates/certificate-writes.js';
import { ImageRegistryCaDir } from '../logic/nodeplan/node-paths.js';
import type { Clock } from '../ports/clock.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { Controller } from '../runtime/controller.js';
import { Informer } from '../runtime/informer.js';
import type { ReconcileResult, Reconciler } from '../runtime/reconciler.js';
import type { ClusterNode } from './cluster-node.js';
import type { DaemonEvents } from './daemon-events.js';

export interface CertificateWriterOptions {
  readonly host: Host;
  readonly client: ResourceClient;
  readonly cluster: ClusterNode;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: DaemonEvents;
  /** Look again this long after finding no Node yet (upstream: 1 minute). */
  readonly noNodeRetryMs?: number;
}

export class CertificateWriter implements Reconciler {
  readonly #o: CertificateWriterOptions;
  readonly #informer: Informer<ControllerConfig>;
  readonly #controller: Controller;

  constructor(options: CertificateWriterOptions) {
    this.#o = options;
    this.#informer = new Informer<ControllerConfig>({
      client: options.client,
      ref: Resources.controllerConfig,
      clock: options.clock,
      log: options.log,
      fieldSelector: `metadata.name=${ControllerConfigName}`,
    });
    this.#controller = new Controller({
      name: 'certificate-writer',
      reconciler: this,
      clock: options.clock,
      log: options.log,
      rateLimiter: { baseDelayMs: 1000, maxDelayMs: 60_000 },
    }).watch(this.#informer);
  }

  /** Also look when the Node changes (its annotations may lag a write, or be reset by hand). */
  nodeChanged(): void {
    this.#controller.enqueue(ControllerConfigName);
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#informer.run(signal), this.#controller.run(signal)]);
  }

  async reconcile(key: string): Promise<ReconcileResult | undefined> {
    const { cluster, log } = this.#o;
    const cc = this.#informer.get(key);
    if (cc === undefined || key !== ControllerConfigName) return undefined;
    const node = cluster.node();
    if (node === undefined) return { requeueAfterMs: this.#o.noNodeRetryMs ?? 60_000 };
    const annotations = node.metadata.annotations ?? {};
    if (!certificatesOutOfDate(cc, annotations)) return undefined;
    const plan = planCertificateWrites(cc, annotations);
    try {
      if (!plan.ok) throw new Error(describeCertificateWritesError(plan.error));
      await this.#write(plan.value.files, plan.value.registryDirs);
      await cluster.patchAnnotations(plan.value.annotations);
    } catch (e) {
      const message = `failed to write certificates from ControllerConfig ${cc.metadata.resourceVersion ?? ''}: ${(e as Error).message}`;
      log.warn(message);
      await this.#o.events.emit('Warning', 'CertificateWriteFailed', message);
      throw e;
    }
    log.info('wrote certificates in place (no drain, no reboot)', {
      controllerConfig: cc.metadata.resourceVersion,
      paths: plan.value.files.map((f) => f.path),
    });
    return undefined;
  }

  async #write(
    files: readonly { readonly path: string; readonly data: Uint8Array }[],
    registryDirs: readonly string[],
  ): Promise<void> {
    const fs = this.#o.host.files;
    const keep = new Set(registryDirs);
    for (const name of await fs.list(ImageRegistryCaDir)) {
      const path = `${ImageRegistryCaDir}/${name}`;
      if (!keep.has(name) && (await fs.stat(path))?.kind === 'directory') await fs.removeTree(path);
    }
    for (const f of files) {
      // an existing file keeps its mode (an administrator's 0600 stays 0600)
      const mode = (await fs.stat(f.path))?.mode ?? 0o644;
      await fs.writeAtomic(f.path, f.data, { mode });
    }
  }
}
