/**
 * NodeRestriction's rules for a node's own Node object, as Kubernetes' admission plugin has them
 * (`plugin/pkg/admission/noderestriction`): a node registers and updates its Node, but may not
 * claim a role or any other label under `kubernetes.io`, `k8s.io` or `node-restriction.kubernetes.io`
 * that is not a kubelet label, may not change its taints, and may not set a config source. The
 * control plane (an administrator, the installer, machine-api's node link) sets those. Which Node
 * a node may write at all is checked before the store (restriction-admission.ts).
 *
 * Runs as a validating admission plugin of the store, on the object as it would be stored, so a
 * label added through any patch type or PUT is seen the same way. Messages are upstream's
 * (docs/reference/security.md §1.1–1.3).
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { KubeObject } from '../resource-store.js';
import type { AdmissionAttributes } from '../store/context.js';
import { nodeNameOf } from './identities.js';

/** The labels a kubelet may set on itself (`kubeletapis.KubeletLabels()`). */
const KubeletLabels: ReadonlySet<string> = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KubeletLabelNamespaces = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const inNamespace = (prefix: string, namespace: string): boolean =>
  prefix === namespace || prefix.endsWith(`.${namespace}`);

function isKubeletLabel(key: string): boolean {
  if (KubeletLabels.has(key)) return true;
  const prefix = key.slice(0, key.indexOf('/'));
  return KubeletLabelNamespaces.some((ns) => inNamespace(prefix, ns));
}

/** Whether a node may not set, change or remove the label `key` on itself. */
export function isForbiddenNodeLabel(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash);
  if (inNamespace(prefix, 'node-restriction.kubernetes.io')) return true;
  if (inNamespace(prefix, 'kubernetes.io') || inNamespace(prefix, 'k8s.io'))
    return !isKubeletLabel(key);
  return false;
}

const labelsOf = (node: KubeObject | undefined): Readonly<Record<string, string>> =>
  node?.metadata.labels ?? {};

const specField = (node: KubeObject | undefined, field: string): unknown => {
  const spec = node?.['spec'];
  return typeof spec === 'object' && spec !== null
    ? (spec as Record<string, unknown>)[field]
    : undefined;
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Forbidden labels that differ between `before` and `after`, sorted. */
function changedForbiddenLabels(before: KubeObject | undefined, after: KubeObject): string[] {
  const a = labelsOf(before);
  const b = labelsOf(after);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => isForbiddenNodeLabel(k) && a[k] !== b[k]).sort();
}

const NodesResource = { group: '', resource: 'nodes' };

function forbid(name: string, message: string): never {
  throw StatusError.forbidden(NodesResource, name, message);
}

function admitNodeCreate(node: string, name: string, object: KubeObject): void {
  const configSource = specField(object, 'configSource');
  if (configSource !== undefined && configSource !== null)
    forbid(name, `node "${node}" is not allowed to create pods with a non-nil configSource`);
  const labels = Object.keys(labelsOf(object)).filter(isForbiddenNodeLabel).sort();
  if (labels.length > 0)
    forbid(name, `node "${node}" is not allowed to set the following labels: ${labels.join(', ')}`);
}

function admitNodeUpdate(node: string, name: string, object: KubeObject, old?: KubeObject): void {
  const configSource = specField(object, 'configSource');
  const oldSource = specField(old, 'configSource');
  if (configSource !== undefined && configSource !== null && !same(configSource, oldSource))
    forbid(
      name,
      `node "${node}" is not allowed to update configSource to a new non-nil configSource`,
    );
  if (!same(specField(object, 'taints') ?? [], specField(old, 'taints') ?? []))
    forbid(name, `node "${node}" is not allowed to modify taints`);
  const labels = changedForbiddenLabels(old, object);
  if (labels.length > 0) forbid(name, `is not allowed to modify labels: ${labels.join(', ')}`);
}

/** The NodeRestriction plugin as a store admission hook; every other write passes. */
export function nodeRestrictionAdmission(a: AdmissionAttributes): Promise<void> {
  const node = nodeNameOf(a.user);
  if (node === undefined || a.rt.group !== '' || a.rt.plural !== 'nodes') return Promise.resolve();
  const name = a.object.metadata.name ?? '';
  if (a.operation === 'create') admitNodeCreate(node, name, a.object);
  else admitNodeUpdate(node, name, a.object, a.old);
  return Promise.resolve();
}
