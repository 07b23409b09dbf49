/**
 * `metadata.managedFields` as kube-apiserver's field manager keeps them. Every write records who
 * set which fields: server-side apply as an `Apply` entry per manager (its set is exactly what its
 * configuration names), every other write (create, PUT, non-apply PATCH) as an `Update` entry per
 * manager and apiVersion (the fields it changed). An apply of a field another manager owns with a
 * different value is a conflict (409 FieldManagerConflict, worded as upstream) unless forced; an
 * equal value is shared ownership. A field an applier drops is removed from the object only when
 * no other manager owns it. Updates never conflict: what they change leaves every other set.
 * `kubectl`'s applies on an object carrying `kubectl.kubernetes.io/last-applied-configuration`
 * take the fields listed there whose value is still live without conflict, and rewrite the
 * annotation. Identity fields (apiVersion, kind, name, uid, resourceVersion, …) are never owned;
 * neither is `status` through the main resource of a kind with a status subresource, nor anything
 * but `status` through `/status`. Update entries beyond ten are merged into `ancient-changes`.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { KubeObject } from '../resource-store.js';
import { apiVersionOf, type ResourceType } from '../resource-type.js';
import { FieldSet, printPath } from './field-set.js';
import { cloneJson, isJsonMap, type JsonMap } from './json.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { hasStatusSubresource } from './strategy.js';
import { compare, merge, removePaths, rootType, toFieldSet, type TypeRef } from './typed-value.js';

const LastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
const MaxUpdateManagers = 10;
const AncientChanges = 'ancient-changes';

type Operation = 'Apply' | 'Update';

interface ManagerEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  readonly subresource: string;
  time: string | undefined;
  set: FieldSet;
}

/** Managers by identity: {manager, operation, subresource} for Apply, plus apiVersion for Update. */
type Managers = Map<string, ManagerEntry>;

function managerId(
  e: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  return JSON.stringify([
    e.manager,
    e.operation,
    e.operation === 'Apply' ? '' : e.apiVersion,
    e.subresource,
  ]);
}

/** The managers recorded on an object; undefined when the list is not valid managedFields. */
function decodeManagedFields(value: unknown): Managers | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: Managers = new Map();
  for (const raw of value) {
    if (!isJsonMap(raw)) return undefined;
    const operation = raw['operation'] ?? 'Update';
    if (operation !== 'Apply' && operation !== 'Update') return undefined;
    const set =
      raw['fieldsV1'] === undefined ? new FieldSet() : FieldSet.fromFieldsV1(raw['fieldsV1']);
    if (set === undefined) return undefined;
    const entry: ManagerEntry = {
      manager: typeof raw['manager'] === 'string' ? raw['manager'] : '',
      operation,
      apiVersion: typeof raw['apiVersion'] === 'string' ? raw['apiVersion'] : '',
      subresource: typeof raw['subresource'] === 'string' ? raw['subresource'] : '',
      time: typeof raw['time'] === 'string' ? raw['time'] : undefined,
      set,
    };
    out.set(managerId(entry), entry);
  }
  return out;
}

const seconds = (t: string | undefined): number =>
  t === undefined ? 0 : Math.floor(Date.parse(t) / 1000);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** managedFields as stored: sorted by operation, time, manager, apiVersion, subresource. */
function encodeManagedFields(managers: Managers): JsonMap[] {
  return [...managers.values()]
    .filter((e) => !e.set.isEmpty())
    .sort(
      (p, q) =>
        cmp(p.operation, q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        cmp(p.manager, q.manager) ||
        cmp(p.apiVersion, q.apiVersion) ||
        cmp(p.subresource, q.subresource),
    )
    .map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.time === undefined ? {} : { time: e.time }),
      fieldsType: 'FieldsV1',
      fieldsV1: e.set.toFieldsV1(),
      ...(e.subresource === '' ? {} : { subresource: e.subresource }),
    }));
}

/** Fields nobody owns (apiserver's stripMeta), and what the request's resource resets. */
function ownable(rt: ResourceType, subresource: string, set: FieldSet): FieldSet {
  let out = set;
  for (const f of ['apiVersion', 'kind', 'metadata']) out = out.withoutMember([`f:${f}`]);
  for (const f of [
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'clusterName',
    'generation',
    'resourceVersion',
  ])
    out = out.withoutMember(['f:metadata', `f:${f}`]);
  out = out.withoutSubtree(['f:metadata', 'f:managedFields']);
  if (subresource === 'status') {
    const status = out.onlySubtree(['f:status']);
    return rt.builtIn ? status.union(out.onlySubtree(['f:metadata'])) : status;
  }
  return hasStatusSubresource(rt) ? out.withoutSubtree(['f:status']) : out;
}

function filtered(
  rt: ResourceType,
  subresource: string,
  c: ReturnType<typeof compare>,
): ReturnType<typeof compare> {
  return {
    added: ownable(rt, subresource, c.added),
    modified: ownable(rt, subresource, c.modified),
    removed: ownable(rt, subresource, c.removed),
  };
}

const withoutManaged = (obj: unknown): unknown => {
  if (!isJsonMap(obj) || !isJsonMap(obj['metadata'])) return obj;
  const meta = { ...obj['metadata'] };
  delete meta['managedFields'];
  return { ...obj, metadata: meta };
};

/** "mgr", "mgr" using v1, "mgr" with subresource "status": how conflicts name a manager. */
function printManager(e: ManagerEntry): string {
  let text = JSON.stringify(e.manager);
  if (e.subresource !== '') text += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') text += ` using ${e.apiVersion}`;
  return text;
}

interface Conflict {
  readonly manager: ManagerEntry;
  readonly path: string[];
}

/** 409 `Apply failed with N conflict(s): …` with one FieldManagerConflict cause per field. */
function applyConflict(conflicts: readonly Conflict[]): StatusError {
  const sorted = [...conflicts].sort(
    (a, b) =>
      cmp(printManager(a.manager), printManager(b.manager)) ||
      cmp(printPath(a.path), printPath(b.path)),
  );
  let message: string;
  const [only] = sorted;
  if (sorted.length === 1 && only !== undefined) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(only.manager)}: ${printPath(only.path)}`;
  } else {
    const lines: string[] = [];
    let last = '';
    for (const c of sorted) {
      const who = printManager(c.manager);
      if (who !== last) lines.push(`conflicts with ${who}:`);
      last = who;
      lines.push(`- ${printPath(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError({
    message,
    reason: 'Conflict',
    code: 409,
    details: {
      causes: sorted.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${printManager(c.manager)}`,
        field: printPath(c.path),
      })),
    },
  });
}

export interface FieldManagerRequest {
  readonly rt: ResourceType;
  readonly manager: string;
  readonly subresource: string;
  readonly now: number;
}

/**
 * Moves changed fields from every other manager to the writer; conflicts are what other managers
 * own that the write modifies or adds (the caller decides whether they fail it).
 */
function transferOwnership(
  c: ReturnType<typeof compare>,
  managers: Managers,
  writer: string,
): Conflict[] {
  const changed = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  for (const [id, entry] of managers) {
    if (id === writer) continue;
    const taken = entry.set.intersection(changed);
    for (const path of taken.paths()) conflicts.push({ manager: entry, path });
    entry.set = entry.set.difference(taken).difference(c.removed);
  }
  return conflicts;
}

/** What changed, restricted to the fields a manager can own through this request. */
function changes(
  req: FieldManagerRequest,
  live: unknown,
  next: unknown,
): ReturnType<typeof compare> {
  return filtered(
    req.rt,
    req.subresource,
    compare(rootType(req.rt), withoutManaged(live), withoutManaged(next)),
  );
}

function dropEmpty(managers: Managers): void {
  for (const [id, entry] of managers) if (entry.set.isEmpty()) managers.delete(id);
}

/** Caps Update entries at ten; the oldest merge into `ancient-changes`. */
function capUpdates(managers: Managers): void {
  const updates = [...managers.entries()]
    .filter(([, e]) => e.operation === 'Update' && e.manager !== AncientChanges)
    .sort(([, a], [, b]) => seconds(a.time) - seconds(b.time));
  const excess = updates.length - MaxUpdateManagers + (managers.has(ancientId()) ? 1 : 0);
  if (excess <= 0) return;
  const ancient = managers.get(ancientId()) ?? {
    manager: AncientChanges,
    operation: 'Update' as const,
    apiVersion: '',
    subresource: '',
    time: undefined,
    set: new FieldSet(),
  };
  for (const [id, entry] of updates.slice(0, excess)) {
    ancient.set = ancient.set.union(entry.set);
    managers.delete(id);
  }
  managers.set(ancientId(), ancient);
}

const ancientId = (): string =>
  managerId({ manager: AncientChanges, operation: 'Update', apiVersion: '', subresource: '' });

/** The request's manager entry (without fields or time) and its identity. */
function writerOf(
  req: FieldManagerRequest,
  operation: Operation,
): { entry: Omit<ManagerEntry, 'time' | 'set'>; id: string } {
  const entry = {
    manager: req.manager,
    operation,
    apiVersion: apiVersionOf(req.rt),
    subresource: req.subresource,
  };
  return { entry, id: managerId(entry) };
}

/**
 * The managers after a non-apply write of `next` over `live` (undefined for a create). Managed
 * fields the client sent on `next` replace the live ones when they are valid and non-empty.
 */
export function updateManagedFields(
  req: FieldManagerRequest,
  live: KubeObject | undefined,
  next: KubeObject,
): JsonMap[] {
  const sent =
    req.subresource === '' ? decodeManagedFields(next.metadata.managedFields) : undefined;
  const managers =
    sent !== undefined && sent.size > 0
      ? sent
      : (decodeManagedFields(live?.metadata.managedFields) ?? new Map<string, ManagerEntry>());
  const { entry, id } = writerOf(req, 'Update');
  const c = changes(req, live, next);
  // like upstream's "current-operation": the writer is a stranger to its own previous entry
  transferOwnership(c, managers, '');
  const changed = c.modified.union(c.added);
  if (!changed.isEmpty()) {
    const previous = managers.get(id);
    managers.set(id, {
      ...entry,
      time: rfc3339(req.now),
      set: previous === undefined ? changed : previous.set.union(changed),
    });
  }
  dropEmpty(managers);
  capUpdates(managers);
  return encodeManagedFields(managers);
}

export interface ApplyResult {
  /** The object after the apply, managedFields included. */
  readonly object: JsonMap;
}

/** Fields of last-applied-configuration whose value is still the live one (conflict-free). */
function lastAppliedFields(ref: TypeRef, live: JsonMap): FieldSet | undefined {
  const meta = isJsonMap(live['metadata']) ? live['metadata'] : {};
  const annotations = isJsonMap(meta['annotations']) ? meta['annotations'] : {};
  const text = annotations[LastAppliedAnnotation];
  if (typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  const set = toFieldSet(ref, lastApplied);
  const c = compare(ref, lastApplied, withoutManaged(live));
  return set.difference(c.modified).difference(c.added).difference(c.removed);
}

/**
 * Server-side apply of `config` (already pruned to the schema) over `live` (undefined: the object
 * is created). Throws the 409 conflict unless `force`.
 */
export function applyConfiguration(
  req: FieldManagerRequest,
  live: KubeObject | undefined,
  config: JsonMap,
  force: boolean,
): ApplyResult {
  const ref = rootType(req.rt);
  const liveValue = (withoutManaged(live) as JsonMap | undefined) ?? {};
  const managers =
    decodeManagedFields(live?.metadata.managedFields) ?? new Map<string, ManagerEntry>();
  const { entry, id } = writerOf(req, 'Apply');
  const attempt = (
    forced: boolean,
  ): { merged: JsonMap; managers: Managers; conflicts: Conflict[] } => {
    const ms: Managers = new Map([...managers].map(([k, e]) => [k, { ...e, set: e.set.clone() }]));
    const lastSet = ms.get(id)?.set;
    const applied = ownable(req.rt, req.subresource, toFieldSet(ref, config));
    ms.set(id, { ...entry, time: ms.get(id)?.time, set: applied });
    let merged = merge(ref, liveValue, config) as JsonMap;
    if (lastSet !== undefined) {
      // a dropped path stays while anyone, the applier included, owns it or something below it
      // (an intermediate map the applier still sets fields of, a list item another manager owns)
      const owners = [...ms.values()].map((e) => e.set);
      const dropped = lastSet.difference(applied);
      const removable = new FieldSet();
      for (const path of dropped.paths()) {
        if (!owners.some((s) => s.hasPrefix(path))) removable.insert(path);
      }
      merged = removePaths(ref, merged, removable) as JsonMap;
    }
    const conflicts = transferOwnership(changes(req, liveValue, merged), ms, id);
    return { merged, managers: ms, conflicts: forced ? [] : conflicts };
  };
  let result = attempt(force);
  if (result.conflicts.length > 0 && req.manager === 'kubectl') {
    const allowed = lastAppliedFields(ref, liveValue);
    if (allowed !== undefined && result.conflicts.every((c) => allowed.has(c.path)))
      result = attempt(true);
  }
  if (result.conflicts.length > 0) throw applyConflict(result.conflicts);
  const { merged, managers: after } = result;
  const changed = !jsonEqual(liveValue, merged);
  const own = after.get(id);
  if (own !== undefined && (changed || own.time === undefined)) own.time = rfc3339(req.now);
  if (req.manager === 'kubectl') syncLastApplied(merged, config);
  dropEmpty(after);
  const meta = isJsonMap(merged['metadata']) ? merged['metadata'] : {};
  meta['managedFields'] = encodeManagedFields(after);
  merged['metadata'] = meta;
  return { object: merged };
}

/** kubectl's applies keep an existing last-applied-configuration in step with what they apply. */
function syncLastApplied(merged: JsonMap, config: JsonMap): void {
  const meta = merged['metadata'];
  const annotations = isJsonMap(meta) ? meta['annotations'] : undefined;
  if (!isJsonMap(annotations) || typeof annotations[LastAppliedAnnotation] !== 'string') return;
  const applied = cloneJson(config);
  const appliedMeta = isJsonMap(applied['metadata']) ? applied['metadata'] : undefined;
  const appliedAnnotations = appliedMeta?.['annotations'];
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- the one annotation it omits
  if (isJsonMap(appliedAnnotations)) delete appliedAnnotations[LastAppliedAnnotation];
  annotations[LastAppliedAnnotation] = `${JSON.stringify(applied)}\n`;
}

/** The manager of a non-apply write: fieldManager, else the User-Agent up to its first `/`. */
export function updateManagerName(
  fieldManager: string | undefined,
  userAgent: string | undefined,
): string {
  if (fieldManager !== undefined && fieldManager !== '') return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0]?.slice(0, 128) ?? '';
  return prefix === '' ? 'unknown' : prefix;
}
