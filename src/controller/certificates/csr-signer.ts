/**
 * The kubelet client signer, as kube-controller-manager's csrsigning controller runs it for
 * `kubernetes.io/kube-apiserver-client-kubelet`: an approved CSR that is not Failed and has no
 * certificate yet is checked against the kubelet client rules; one that fails them gets the
 * Failed condition (reason `SignerValidationFailure`, the rule's message), one that passes gets
 * `status.certificate`, signed by the cluster CA for the signing duration (lowered to the CSR's
 * `expirationSeconds`, never below 10 minutes), backdated 5 minutes. Both through `/status`
 * (docs/reference/tls-bootstrap.md §5).
 */
import {
  csrCondition,
  CsrConditionType,
  KubeletClientSigner,
  withCondition,
  type CertificateSigningRequest,
} from '../../api/certificates/v1/certificate-signing-request.js';
import { Resources } from '../../api/resource-refs.js';
import { parseCertificateRequestPem } from '../../logic/certificates/certificate-request.js';
import { validateKubeletClientRequest } from '../../logic/certificates/node-client-request.js';
import type { CertificateAuthority } from '../../ports/certificate-authority.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import type { Informer } from '../../runtime/informer.js';
import type { ReconcileResult, Reconciler } from '../../runtime/reconciler.js';

const CsrSignerName = 'csr-signer';
const SignerValidationFailure = 'SignerValidationFailure';
/** `--cluster-signing-duration`'s default: one year. */
const DefaultSigningDurationMs = 8760 * 3_600_000;
const MinDurationMs = 600_000;

export interface CsrSignerOptions {
  readonly client: ResourceClient;
  readonly csrs: Informer<CertificateSigningRequest>;
  readonly authority: CertificateAuthority;
  readonly clock: Clock;
  readonly log: Logger;
  readonly durationMs?: number;
}

/** Whether the signer has work on this CSR: approved, not failed, not yet issued, its signer. */
function needsSigning(csr: CertificateSigningRequest): boolean {
  return (
    csr.spec.signerName === KubeletClientSigner &&
    csrCondition(csr, CsrConditionType.Approved) !== undefined &&
    csrCondition(csr, CsrConditionType.Failed) === undefined &&
    (csr.status?.certificate ?? '') === ''
  );
}

class CsrSigner implements Reconciler {
  readonly #o: CsrSignerOptions;

  constructor(options: CsrSignerOptions) {
    this.#o = options;
  }

  #ttl(csr: CertificateSigningRequest): number {
    const duration = this.#o.durationMs ?? DefaultSigningDurationMs;
    const asked = csr.spec.expirationSeconds;
    if (asked === undefined) return duration;
    return Math.max(MinDurationMs, Math.min(duration, asked * 1000));
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const csr = this.#o.csrs.get(key);
    if (csr === undefined || !needsSigning(csr)) return undefined;
    const parsed = parseCertificateRequestPem(
      Buffer.from(csr.spec.request, 'base64').toString('latin1'),
    );
    const valid = parsed.ok
      ? validateKubeletClientRequest(parsed.value, csr.spec.usages ?? [])
      : parsed;
    const now = this.#o.clock.now();
    if (!parsed.ok || !valid.ok) {
      const message = valid.ok ? '' : valid.error;
      await this.#o.client.updateStatus<CertificateSigningRequest>(
        Resources.certificateSigningRequest,
        withCondition({
          csr,
          type: CsrConditionType.Failed,
          reason: SignerValidationFailure,
          message,
          now: rfc3339(now),
        }),
        { signal },
      );
      this.#o.log.warn('refused to sign the CSR', { csr: key, reason: message });
      return undefined;
    }
    const certificatePem = await this.#o.authority.signClientCertificate({
      publicKey: parsed.value.publicKey,
      subject: new Uint8Array(parsed.value.request.subjectName.toArrayBuffer()),
      usages: csr.spec.usages ?? [],
      ttlMs: this.#ttl(csr),
      now,
    });
    await this.#o.client.updateStatus<CertificateSigningRequest>(
      Resources.certificateSigningRequest,
      {
        ...csr,
        status: { ...csr.status, certificate: Buffer.from(certificatePem).toString('base64') },
      },
      { signal },
    );
    this.#o.log.info('signed the CSR', { csr: key, user: parsed.value.commonName });
    return undefined;
  }
}

export function createCsrSigner(options: CsrSignerOptions): Controller {
  return new Controller({
    name: CsrSignerName,
    reconciler: new CsrSigner(options),
    clock: options.clock,
    log: options.log,
  }).watch(options.csrs);
}
