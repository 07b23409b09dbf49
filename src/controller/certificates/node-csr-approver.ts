/**
 * The node client CSR approver: OpenShift's cluster-machine-approver for first client
 * certificates (logic/certificates/node-client-approval.ts decides). A CSR that passes gets the
 * Approved condition through `/approval` with upstream's reason and message; one that does not
 * stays pending, nothing written on it, the reason logged once per CSR and reason. A CSR waiting
 * for its Machine is looked at again whenever a Machine or Node changes
 * (docs/reference/tls-bootstrap.md §7).
 */
import {
  CsrConditionType,
  withCondition,
  type CertificateSigningRequest,
} from '../../api/certificates/v1/certificate-signing-request.js';
import type { Node } from '../../api/core/v1/node.js';
import type { Machine } from '../../api/machine/v1beta1/machine.js';
import { Resources } from '../../api/resource-refs.js';
import {
  ApprovedMessage,
  ApprovedReason,
  decideNodeClientApproval,
  isDecided,
  tooManyPending,
} from '../../logic/certificates/node-client-approval.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import type { Informer } from '../../runtime/informer.js';
import type { ReconcileResult, Reconciler } from '../../runtime/reconciler.js';

const NodeCsrApproverName = 'node-csr-approver';

export interface NodeCsrApproverOptions {
  readonly client: ResourceClient;
  readonly csrs: Informer<CertificateSigningRequest>;
  readonly machines: Informer<Machine>;
  readonly nodes: Informer<Node>;
  readonly clock: Clock;
  readonly log: Logger;
  /** How soon a CSR without its Machine is looked at again (besides on Machine events). */
  readonly retryMs?: number;
}

class NodeCsrApprover implements Reconciler {
  readonly #o: NodeCsrApproverOptions;
  /** The last reason logged per pending CSR, so each is logged once. */
  readonly #logged = new Map<string, string>();

  constructor(options: NodeCsrApproverOptions) {
    this.#o = options;
  }

  #logOnce(name: string, reason: string): void {
    if (this.#logged.get(name) === reason) return;
    this.#logged.set(name, reason);
    this.#o.log.info(reason, { csr: name });
    this.#o.log.info(`${name}: CSR not authorized`, { csr: name });
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { csrs, machines, nodes, clock, client } = this.#o;
    const csr = csrs.get(key);
    if (csr === undefined || isDecided(csr)) {
      this.#logged.delete(key);
      return undefined;
    }
    const flood = tooManyPending(
      csrs.list(),
      machines.list().length,
      nodes.list().length,
      clock.now(),
    );
    if (flood !== undefined) {
      this.#logOnce(
        key,
        `${key}: Pending CSRs: ${flood.pending}; Max pending allowed: ${flood.max}. Difference between pending CSRs and machines > 100. Ignoring all CSRs as too many recent pending CSRs seen`,
      );
      return { requeueAfterMs: this.#o.retryMs ?? 30_000 };
    }
    const decision = decideNodeClientApproval({
      csr,
      machines: machines.list(),
      nodeExists: (name) => nodes.get(name) !== undefined,
    });
    if (decision.kind === 'ignore') return undefined;
    if (decision.kind === 'pending') {
      this.#logOnce(key, decision.reason);
      return decision.retry ? { requeueAfterMs: this.#o.retryMs ?? 30_000 } : undefined;
    }
    await client.updateApproval<CertificateSigningRequest>(
      Resources.certificateSigningRequest,
      withCondition({
        csr,
        type: CsrConditionType.Approved,
        reason: ApprovedReason,
        message: ApprovedMessage,
        now: rfc3339(clock.now()),
      }),
      { signal },
    );
    this.#logged.delete(key);
    this.#o.log.info(`CSR ${key} approved`, { csr: key, node: decision.nodeName });
    return undefined;
  }
}

export function createNodeCsrApprover(options: NodeCsrApproverOptions): Controller {
  const controller = new Controller({
    name: NodeCsrApproverName,
    reconciler: new NodeCsrApprover(options),
    clock: options.clock,
    log: options.log,
  });
  const pendingCsrs = (): string[] =>
    options.csrs
      .list()
      .filter((c) => !isDecided(c))
      .map((c) => c.metadata.name ?? '');
  return controller
    .watch(options.csrs)
    .watch(options.machines, { map: pendingCsrs })
    .watch(options.nodes, {
      map: pendingCsrs,
      // heartbeats change nothing the approver looks at
      updatePredicate: () => false,
    });
}
