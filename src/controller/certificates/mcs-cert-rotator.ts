/**
 * The machine config server's certificate rotator (upstream's certrotation controller,
 * docs/certificates.md): keeps the signer Secret `machine-config-server-ca`, the CA bundle
 * ConfigMap `machine-config-server-ca` (`ca-bundle.crt`: every CA still valid, the current one
 * first) and the serving Secret `machine-config-server-tls` in the MCO's namespace, for the host
 * names the Infrastructure gives (logic/certificates/mcs-cert-rotation.ts decides). It looks again
 * when one of them or the Infrastructure changes, and at the next deadline.
 *
 * The MCS reads the serving Secret as files (a Secret volume on a cluster, the box's projection
 * in the box) and reloads them without a restart; pointer configs follow the bundle.
 */
import type { Infrastructure } from '../../api/config/v1/infrastructure.js';
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import type { Secret } from '../../api/core/v1/secret.js';
import { Resources } from '../../api/resource-refs.js';
import {
  readCertificates,
  type CertificateFacts,
} from '../../logic/certificates/certificate-facts.js';
import {
  CertificateAnnotation,
  McsCertificateObjects,
  McsSignerName,
  nextCaBundle,
  nextCheck,
  servingHosts,
  servingRenewal,
  signerRenewal,
  type RotationTiming,
} from '../../logic/certificates/mcs-cert-rotation.js';
import type { CertificateIssuer, KeyPairPem } from '../../ports/certificate-issuer.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import type { Informer } from '../../runtime/informer.js';
import { liveGet } from '../../runtime/live-get.js';
import { TerminalError, type ReconcileResult, type Reconciler } from '../../runtime/reconciler.js';

const RotatorName = 'mcs-cert-rotator';
const Key = 'machine-config-server';
const TlsType = 'kubernetes.io/tls';
const BundleKey = 'ca-bundle.crt';
const { namespace } = McsCertificateObjects;

export interface McsCertRotatorOptions {
  readonly client: ResourceClient;
  /** Secrets and ConfigMaps of the MCO's namespace. */
  readonly secrets: Informer<Secret>;
  readonly configMaps: Informer<ConfigMap>;
  readonly infrastructures: Informer<Infrastructure>;
  readonly issuer: CertificateIssuer;
  readonly timing: RotationTiming;
  readonly clock: Clock;
  readonly log: Logger;
}

const decoded = (value: string | undefined): string =>
  value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8');
const encoded = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** The key pair a TLS Secret holds, with its certificate's facts; undefined when unusable. */
function keyPairOf(
  secret: Secret | undefined,
): { readonly pair: KeyPairPem; readonly facts: CertificateFacts } | undefined {
  const certPem = decoded(secret?.data?.['tls.crt']);
  const keyPem = decoded(secret?.data?.['tls.key']);
  const facts = readCertificates(certPem)[0];
  if (facts === undefined || keyPem === '') return undefined;
  return { pair: { certPem, keyPem }, facts };
}

class McsCertRotator implements Reconciler {
  readonly #o: McsCertRotatorOptions;

  constructor(options: McsCertRotatorOptions) {
    this.#o = options;
  }

  #get<T extends ApiObject>(ref: ResourceRef, name: string, signal: AbortSignal) {
    return liveGet<T>({
      client: this.#o.client,
      ref,
      name,
      namespace: ref.namespaced ? namespace : undefined,
      signal,
    });
  }

  async #write<T extends ApiObject>(
    ref: ResourceRef,
    existing: T | undefined,
    desired: T,
    signal: AbortSignal,
  ): Promise<void> {
    const { client } = this.#o;
    if (existing === undefined) {
      await client.create(ref, desired, { signal });
      return;
    }
    const resourceVersion = existing.metadata.resourceVersion;
    await client.update(
      ref,
      {
        ...desired,
        metadata: {
          ...existing.metadata,
          ...desired.metadata,
          annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations },
          ...(resourceVersion === undefined ? {} : { resourceVersion }),
        },
      },
      { signal },
    );
  }

  #tlsSecret(name: string, pair: KeyPairPem, annotations: Record<string, string>): Secret {
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, annotations },
      type: TlsType,
      data: { 'tls.crt': encoded(pair.certPem), 'tls.key': encoded(pair.keyPem) },
    };
  }

  #validity(now: number) {
    return { notBefore: now, notAfter: now + this.#o.timing.validityMs };
  }

  async #signer(
    now: number,
    signal: AbortSignal,
  ): Promise<{ pair: KeyPairPem; facts: CertificateFacts }> {
    const { issuer, log, timing } = this.#o;
    const existing = await this.#get<Secret>(
      Resources.secret,
      McsCertificateObjects.signerSecret,
      signal,
    );
    const current = keyPairOf(existing);
    const renewal = signerRenewal(current?.facts, now, timing);
    if (current !== undefined && !renewal.renew) return current;
    const name = `${McsSignerName}@${Math.floor(now / 1000)}`;
    const pair = await issuer.newSigner(name, this.#validity(now));
    const facts = readCertificates(pair.certPem)[0];
    if (facts === undefined) throw new Error('the new MCS signer does not parse');
    await this.#write(
      Resources.secret,
      existing,
      this.#tlsSecret(McsCertificateObjects.signerSecret, pair, {
        [CertificateAnnotation.notBefore]: rfc3339(facts.notBefore),
        [CertificateAnnotation.notAfter]: rfc3339(facts.notAfter),
      }),
      signal,
    );
    log.info('rotated the MCS signer', {
      signer: name,
      reason: renewal.renew ? renewal.reason : '',
    });
    return { pair, facts };
  }

  async #bundle(signer: CertificateFacts, now: number, signal: AbortSignal): Promise<void> {
    const existing = await this.#get<ConfigMap>(
      Resources.configMap,
      McsCertificateObjects.bundleConfigMap,
      signal,
    );
    const text = existing?.data?.[BundleKey] ?? '';
    const next = nextCaBundle(signer, readCertificates(text), now)
      .map((c) => c.pem)
      .join('');
    if (next === text) return;
    await this.#write<ConfigMap>(
      Resources.configMap,
      existing,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: McsCertificateObjects.bundleConfigMap, namespace },
        data: { ...existing?.data, [BundleKey]: next },
      },
      signal,
    );
    this.#o.log.info('updated the MCS CA bundle', { certificates: next.split('BEGIN').length - 1 });
  }

  async #serving(
    signer: { pair: KeyPairPem; facts: CertificateFacts },
    hosts: readonly string[],
    now: number,
    signal: AbortSignal,
  ): Promise<CertificateFacts> {
    const { client, issuer, log, timing } = this.#o;
    let existing = await this.#get<Secret>(
      Resources.secret,
      McsCertificateObjects.servingSecret,
      signal,
    );
    if (existing !== undefined && existing.type !== TlsType) {
      // A Secret's type cannot change: upstream deletes one that is not TLS-typed and makes it anew.
      await client.delete(Resources.secret, McsCertificateObjects.servingSecret, namespace, {
        signal,
      });
      existing = undefined;
    }
    const current = keyPairOf(existing);
    const renewal = servingRenewal(
      { serving: current?.facts, signer: signer.facts, hosts },
      now,
      timing,
    );
    if (current !== undefined && !renewal.renew) return current.facts;
    const pair = await issuer.newServing(signer.pair, hosts, this.#validity(now));
    const facts = readCertificates(pair.certPem)[0];
    if (facts === undefined) throw new Error('the new MCS serving certificate does not parse');
    await this.#write(
      Resources.secret,
      existing,
      this.#tlsSecret(McsCertificateObjects.servingSecret, pair, {
        [CertificateAnnotation.notBefore]: rfc3339(facts.notBefore),
        [CertificateAnnotation.notAfter]: rfc3339(facts.notAfter),
        [CertificateAnnotation.issuer]: signer.facts.commonName,
        [CertificateAnnotation.hostnames]: hosts.join(','),
      }),
      signal,
    );
    log.info('issued the MCS serving certificate', {
      issuer: signer.facts.commonName,
      hosts,
      reason: renewal.renew ? renewal.reason : '',
    });
    return facts;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    if (key !== Key) return undefined;
    const now = this.#o.clock.now();
    const infra = await this.#get<Infrastructure>(Resources.infrastructure, 'cluster', signal);
    const hosts = servingHosts(infra);
    // Retrying cannot help: the Infrastructure's change enqueues the key again.
    if (!hosts.ok) throw new TerminalError(hosts.error);
    const signer = await this.#signer(now, signal);
    await this.#bundle(signer.facts, now, signal);
    const serving = await this.#serving(signer, hosts.value, now, signal);
    return {
      requeueAfterMs: Math.max(1000, nextCheck(signer.facts, serving, this.#o.timing, now) - now),
    };
  }
}

const Watched: ReadonlySet<string> = new Set([
  McsCertificateObjects.signerSecret,
  McsCertificateObjects.servingSecret,
]);

export function createMcsCertRotator(options: McsCertRotatorOptions): Controller {
  const ours = (o: ApiObject): string[] => (Watched.has(o.metadata.name ?? '') ? [Key] : []);
  const controller = new Controller({
    name: RotatorName,
    reconciler: new McsCertRotator(options),
    clock: options.clock,
    log: options.log,
  })
    .watch(options.secrets, { map: ours })
    .watch(options.configMaps, { map: ours })
    .watch(options.infrastructures, { map: () => [Key] });
  controller.enqueue(Key);
  return controller;
}
