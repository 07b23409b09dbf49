/**
 * What `kubectl auth can-i --list` should show for a ServiceAccount, computed from manifests the
 * way the RBAC authorizer combines them (every ClusterRoleBinding's ClusterRole, plus the Roles
 * and ClusterRoles of RoleBindings in the namespace asked about), and the parser for what kubectl
 * prints. Both sides become rows keyed `resource[.group] [names]` with a verb set, merged the same
 * way, so the comparison does not depend on how either side splits rules.
 */
import type { ManifestObject } from '../../src/lib/manifests.js';

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly string[];
}

interface Binding {
  readonly roleRef: { readonly kind: string; readonly name: string };
  readonly subjects?: readonly { kind: string; name: string; namespace?: string }[];
}

/** Granted to every authenticated user by the built-in `system:basic-user` ClusterRole. */
const BasicUserRows: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['selfsubjectaccessreviews.authorization.k8s.io []', new Set(['create'])],
  ['selfsubjectrulesreviews.authorization.k8s.io []', new Set(['create'])],
]);

function add(rows: Map<string, Set<string>>, key: string, verbs: Iterable<string>): void {
  const set = rows.get(key) ?? new Set<string>();
  for (const v of verbs) set.add(v);
  rows.set(key, set);
}

/** kubectl's `plural.group/subresource`. */
function rowKey(resource: string, group: string, names: readonly string[]): string {
  const [plural = '', ...sub] = resource.split('/');
  const name = `${group === '' ? plural : `${plural}.${group}`}${sub.map((s) => `/${s}`).join('')}`;
  return `${name} [${names.join(' ')}]`;
}

/** The resource rows `serviceAccount` holds in `namespace`, from the RBAC objects given. */
export function grantedRows(
  objects: readonly ManifestObject[],
  serviceAccount: { readonly namespace: string; readonly name: string },
  namespace: string,
): Map<string, Set<string>> {
  const name = (o: ManifestObject): string => o.metadata?.name ?? '';
  const ns = (o: ManifestObject): string => (o.metadata?.['namespace'] as string | undefined) ?? '';
  const rulesOf = (kind: string, roleName: string, roleNs: string): readonly Rule[] =>
    (objects.find((o) => o.kind === kind && name(o) === roleName && ns(o) === roleNs)?.['rules'] ??
      []) as readonly Rule[];
  const boundHere = (o: ManifestObject): boolean =>
    ((o as unknown as Binding).subjects ?? []).some(
      (s) =>
        s.kind === 'ServiceAccount' &&
        s.name === serviceAccount.name &&
        s.namespace === serviceAccount.namespace,
    );
  const rules: Rule[] = [];
  for (const b of objects) {
    if (!boundHere(b)) continue;
    const ref = (b as unknown as Binding).roleRef;
    if (b.kind === 'ClusterRoleBinding') rules.push(...rulesOf('ClusterRole', ref.name, ''));
    if (b.kind === 'RoleBinding' && ns(b) === namespace)
      rules.push(
        ...(ref.kind === 'Role'
          ? rulesOf('Role', ref.name, namespace)
          : rulesOf('ClusterRole', ref.name, '')),
      );
  }
  const rows = new Map<string, Set<string>>();
  for (const [k, v] of BasicUserRows) add(rows, k, v);
  for (const r of rules)
    for (const group of r.apiGroups ?? [])
      for (const resource of r.resources ?? [])
        add(rows, rowKey(resource, group, r.resourceNames ?? []), r.verbs);
  return rows;
}

/**
 * The resource rows of `kubectl auth can-i --list` (columns Resources, Non-Resource URLs,
 * Resource Names, Verbs); non-resource rows (discovery, health) are left out.
 */
export function parseCanIList(text: string): Map<string, Set<string>> {
  const rows = new Map<string, Set<string>>();
  for (const line of text.split('\n').slice(1)) {
    const m = /^(\S+)\s+\[(.*?)\]\s+\[(.*?)\]\s+\[(.*)\]\s*$/.exec(line);
    if (m === null) continue;
    const [, resource = '', , names = '', verbs = ''] = m;
    add(
      rows,
      `${resource} [${names}]`,
      verbs.split(' ').filter((v) => v !== ''),
    );
  }
  return rows;
}

/** Rows as sorted text lines, for readable comparisons. */
export function rowLines(rows: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  return [...rows.entries()].map(([k, v]) => `${k} [${[...v].sort().join(' ')}]`).sort();
}
