/**
 * What makes a request a kubelet client certificate request, as Kubernetes' signer validates it
 * (`ValidateKubeletClientCSR`): O exactly `[system:nodes]`, no DNS, email, IP or URI SAN, CN
 * beginning with `system:node:`, and the usages {client auth, digital signature, key
 * encipherment} or the same without key encipherment. The messages are upstream's; the checks run
 * in upstream's order, so the first failure is the one upstream reports
 * (docs/reference/tls-bootstrap.md §5).
 */
import { KubeletClientUsages } from '../../api/certificates/v1/certificate-signing-request.js';
import { err, ok, type Result } from '../../lib/result.js';
import type { ParsedCertificateRequest } from './certificate-request.js';

export const NodeUserPrefix = 'system:node:';
export const NodesGroup = 'system:nodes';

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
};

const WithoutKeyEncipherment = KubeletClientUsages.filter((u) => u !== 'key encipherment');

/** Go's `sets.String.List()`: sorted. */
const RequiredUsagesText = `[${[...KubeletClientUsages].sort().join(' ')}]`;

export function validateKubeletClientRequest(
  request: ParsedCertificateRequest,
  usages: readonly string[],
): Result<{ readonly nodeName: string }, string> {
  const o = request.organizations;
  if (o.length !== 1 || o[0] !== NodesGroup) return err('subject organization is not system:nodes');
  if (request.dnsNames.length > 0) return err('DNS subjectAltNames are not allowed');
  if (request.emailAddresses.length > 0) return err('Email subjectAltNames are not allowed');
  if (request.ipAddresses.length > 0) return err('IP subjectAltNames are not allowed');
  if (request.uris.length > 0) return err('URI subjectAltNames are not allowed');
  if (!request.commonName.startsWith(NodeUserPrefix))
    return err('subject common name does not begin with system:node:');
  if (!sameSet(usages, KubeletClientUsages) && !sameSet(usages, WithoutKeyEncipherment))
    return err(`usages did not match ${RequiredUsagesText}`);
  return ok({ nodeName: request.commonName.slice(NodeUserPrefix.length) });
}
