/**
 * Whether a node client CSR may be approved, as OpenShift's cluster-machine-approver decides it
 * (`pkg/controller/{csr_check,node_client}.go`): the request is a valid kubelet client request,
 * made by the node-bootstrapper service account (with exactly its groups), for a node name that
 * no Node has yet and that a Machine without a node reference names as its `InternalDNS`
 * address, within the Machine's first two hours. Anything else stays pending; the reason is for
 * the log only, as upstream writes nothing on the CSR. Messages are upstream's
 * (docs/reference/tls-bootstrap.md §7).
 */
import {
  csrCondition,
  CsrConditionType,
  KubeletClientSigner,
  type CertificateSigningRequest,
} from '../../api/certificates/v1/certificate-signing-request.js';
import { machineNamesNode, type Machine } from '../../api/machine/v1beta1/machine.js';
import { McoNamespace } from '../../api/machineconfiguration/v1/constants.js';
import { parseCertificateRequestPem } from './certificate-request.js';
import { validateKubeletClientRequest } from './node-client-request.js';

export const NodeBootstrapperUser = `system:serviceaccount:${McoNamespace}:node-bootstrapper`;
const NodeBootstrapperGroups = [
  `system:serviceaccounts:${McoNamespace}`,
  'system:serviceaccounts',
  'system:authenticated',
];

export const ApprovedReason = 'NodeCSRApprove';
export const ApprovedMessage =
  'This CSR was approved by the Node CSR Approver (cluster-machine-approver)';

const MachineLeadMs = 10_000;
const MachineWindowMs = 2 * 3_600_000;

export type ApprovalDecision =
  /** Not a CSR this approver looks at, or one already decided. */
  | { readonly kind: 'ignore'; readonly reason: string }
  | { readonly kind: 'approve'; readonly nodeName: string }
  /** Stays pending; `retry`: it may pass later (a Machine may still appear). */
  | { readonly kind: 'pending'; readonly reason: string; readonly retry: boolean };

/** Whether the approver watches the CSR at all: the kubelet client signer, the bootstrapper. */
function isBootstrapClientCsr(csr: CertificateSigningRequest): boolean {
  return csr.spec.signerName === KubeletClientSigner && csr.spec.username === NodeBootstrapperUser;
}

export function isDecided(csr: CertificateSigningRequest): boolean {
  return (
    csrCondition(csr, CsrConditionType.Approved) !== undefined ||
    csrCondition(csr, CsrConditionType.Denied) !== undefined ||
    (csr.status?.certificate ?? '') !== ''
  );
}

/** Go's `time.Time.String()` for a UTC instant with second precision. */
export function goTimeString(ms: number): string {
  return `${new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '')} +0000 UTC`;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x)) && b.every((x) => a.includes(x));

export interface ApprovalInputs {
  readonly csr: CertificateSigningRequest;
  readonly machines: readonly Machine[];
  readonly nodeExists: (name: string) => boolean;
}

type Check =
  | { readonly ok: true; readonly nodeName: string }
  | { readonly ok: false; readonly reason: string };

/** The request itself: a kubelet client request by the node-bootstrapper, for a node name. */
function checkRequest(csr: CertificateSigningRequest): Check {
  const parsed = parseCertificateRequestPem(
    Buffer.from(csr.spec.request, 'base64').toString('latin1'),
  );
  if (!parsed.ok) return { ok: false, reason: `failed to parse CSR: ${parsed.error}` };
  const request = validateKubeletClientRequest(parsed.value, csr.spec.usages ?? []);
  if (!request.ok)
    return { ok: false, reason: `CSR is not a valid node client cert request: ${request.error}` };
  const bootstrapper =
    csr.spec.username === NodeBootstrapperUser &&
    sameSet(csr.spec.groups ?? [], NodeBootstrapperGroups);
  if (!bootstrapper)
    return {
      ok: false,
      reason: 'CSR does not appear to be a valid node bootstrapper client cert request',
    };
  if (request.value.nodeName === '') return { ok: false, reason: 'CSR does not have a node name' };
  return { ok: true, nodeName: request.value.nodeName };
}

/** The Machine's side: it names the node, has no Node yet, and is young enough for this CSR. */
function checkMachine(csr: CertificateSigningRequest, machine: Machine): string | undefined {
  const nodeRef = machine.status?.nodeRef?.name;
  if (nodeRef !== undefined && nodeRef !== '')
    return `machine for node ${nodeRef} already has node ref, cannot approve`;
  const created = Date.parse(csr.metadata.creationTimestamp ?? '');
  const machineCreated = Date.parse(machine.metadata.creationTimestamp ?? '');
  const start = machineCreated - MachineLeadMs;
  const end = machineCreated + MachineWindowMs;
  if (created > start && created < end) return undefined;
  return `CSR creation time ${goTimeString(created)} not in range (${goTimeString(start)}, ${goTimeString(end)})`;
}

export function decideNodeClientApproval(inputs: ApprovalInputs): ApprovalDecision {
  const { csr } = inputs;
  const name = csr.metadata.name ?? '';
  if (csr.spec.signerName !== KubeletClientSigner)
    return { kind: 'ignore', reason: `${name}: signer ${csr.spec.signerName} is not ours` };
  if (isDecided(csr)) return { kind: 'ignore', reason: `${name}: already decided` };
  const pending = (reason: string, retry = false): ApprovalDecision => ({
    kind: 'pending',
    reason: `${name}: ${reason}`,
    retry,
  });
  const request = checkRequest(csr);
  if (!request.ok) return pending(request.reason);
  const { nodeName } = request;
  if (inputs.nodeExists(nodeName))
    return pending(`node ${nodeName} already exists, cannot approve`);
  const machine = inputs.machines.find((m) => machineNamesNode(m, nodeName));
  if (machine === undefined)
    return pending(
      `failed to find machine with InternalDNS matching ${nodeName}, cannot approve`,
      true,
    );
  const problem = checkMachine(csr, machine);
  return problem === undefined ? { kind: 'approve', nodeName } : pending(problem);
}

/**
 * The approver's brake: more pending bootstrap CSRs from the last hour than
 * max(machines, nodes) + 100 means something is flooding it, and it approves nothing.
 */
export function tooManyPending(
  csrs: readonly CertificateSigningRequest[],
  machines: number,
  nodes: number,
  now: number,
): { readonly pending: number; readonly max: number } | undefined {
  const max = Math.max(machines, nodes) + 100;
  const pending = csrs.filter(
    (c) =>
      isBootstrapClientCsr(c) &&
      !isDecided(c) &&
      now - Date.parse(c.metadata.creationTimestamp ?? '') < 3_600_000,
  ).length;
  return pending > max ? { pending, max } : undefined;
}
