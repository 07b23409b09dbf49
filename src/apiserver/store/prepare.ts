/**
 * Turning a request body into the object to store, as the generic registry's BeforeCreate /
 * BeforeUpdate and the kind strategies do: server-owned metadata (uid, creationTimestamp,
 * generation, deletionTimestamp) is set by the server and never taken from the client; unknown
 * fields are pruned; the status subresource split decides whose `.status` survives.
 */
import { randomInt } from 'node:crypto';
import type { FieldError } from '../../api/meta/v1/field-error.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { KubeObject, UserInfo, WriteOptions, WriteSubresource } from '../resource-store.js';
import { apiVersionOf, type ResourceType } from '../resource-type.js';
import type { StoreContext } from './context.js';
import { cloneJson, isJsonMap, type JsonMap } from './json.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { uidChangeError } from './object-meta-validation.js';
import { hasStatusSubresource, strategyFor } from './strategy.js';
import { pruneUnknownFields, reportUnknownFields } from './unknown-fields.js';

/** Server-owned metadata a client can never set directly. */
const SERVER_META = [
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
];

/** The characters of generated name suffixes (no vowels, no look-alikes), as upstream. */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function generateNameSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += SUFFIX_ALPHABET.charAt(randomInt(SUFFIX_ALPHABET.length));
  return out;
}

/** The body as a fresh object of this type, or 400 when it is not a JSON object. */
export function decodeBody(rt: ResourceType, body: unknown): KubeObject {
  if (!isJsonMap(body)) {
    throw StatusError.badRequest(
      `the object provided is unrecognized (must be of type ${rt.kind})`,
    );
  }
  const obj = cloneJson(body);
  obj['apiVersion'] = apiVersionOf(rt);
  obj['kind'] = rt.kind;
  obj['metadata'] = isJsonMap(obj['metadata']) ? obj['metadata'] : {};
  return obj as KubeObject;
}

/** Prunes fields the schema does not know and applies the fieldValidation directive. */
export function pruneAndReport(
  ctx: StoreContext,
  rt: ResourceType,
  obj: KubeObject,
  options: WriteOptions,
): void {
  reportUnknownFields(pruneUnknownFields(ctx.schemas.schemaOf(rt), obj), options);
}

function checkNamespace(rt: ResourceType, meta: JsonMap, namespace: string | undefined): void {
  if (!rt.namespaced) {
    delete meta['namespace'];
    return;
  }
  const sent = meta['namespace'];
  if (typeof sent === 'string' && sent !== '' && sent !== namespace) {
    throw StatusError.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  meta['namespace'] = namespace ?? '';
}

/** The object a create stores (before admission). */
export function prepareCreate({
  ctx,
  rt,
  namespace,
  body,
  options,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly body: unknown;
  readonly options: WriteOptions;
}): KubeObject {
  const obj = decodeBody(rt, body);
  const meta = obj.metadata as JsonMap;
  checkNamespace(rt, meta, namespace);
  const rv = meta['resourceVersion'];
  if (typeof rv === 'string' && rv !== '') {
    throw StatusError.badRequest('resourceVersion should not be set on objects to be created');
  }
  pruneAndReport(ctx, rt, obj, options);
  const strategy = strategyFor(rt);
  strategy.normalize(obj);
  strategy.prepareForCreate?.(obj, options.user, rfc3339(ctx.clock.now()));
  const status = strategy.statusOnCreate;
  if (status === 'drop') delete obj['status'];
  else if (status !== 'keep') obj['status'] = status();
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a fixed list of keys
  for (const key of [...SERVER_META, 'resourceVersion']) delete meta[key];
  meta['uid'] = ctx.newUid();
  meta['creationTimestamp'] = rfc3339(ctx.clock.now());
  if (strategy.tracksGeneration) meta['generation'] = 1;
  else delete meta['generation'];
  const generateName = meta['generateName'];
  if ((meta['name'] ?? '') === '' && typeof generateName === 'string' && generateName !== '') {
    meta['name'] = `${generateName}${generateNameSuffix()}`;
  }
  return obj;
}

/** Checks the body's name against the URL's (400 on a mismatch). */
export function checkName(body: unknown, name: string): void {
  const sent =
    isJsonMap(body) && isJsonMap(body['metadata']) ? body['metadata']['name'] : undefined;
  if (typeof sent === 'string' && sent !== '' && sent !== name) {
    throw StatusError.badRequest(
      `the name of the object (${sent}) does not match the name on the URL (${name})`,
    );
  }
}

export interface PreparedUpdate {
  readonly next: KubeObject;
  /** Metadata errors found while preparing (an attempt to change the uid). */
  readonly errors: readonly FieldError[];
}

/**
 * The object an update of `old` stores (before admission). `incoming` has been decoded and pruned;
 * a status (or approval) write keeps everything but `.status` (and, for built-ins, metadata) from
 * `old`, and the kind may narrow that further. `now` stamps what the kind dates (CSR conditions).
 */
export function prepareUpdate({
  rt,
  old,
  incoming,
  subresource,
  now,
  user,
}: {
  readonly rt: ResourceType;
  readonly old: KubeObject;
  readonly incoming: KubeObject;
  readonly subresource: WriteSubresource | undefined;
  readonly now: string;
  readonly user: UserInfo;
}): PreparedUpdate {
  checkName(incoming, old.metadata.name ?? '');
  const strategy = strategyFor(rt);
  strategy.normalize(incoming);
  const next = subresource !== undefined ? statusUpdate(rt, old, incoming) : cloneJson(incoming);
  if (subresource === undefined && hasStatusSubresource(rt)) copyField(old, next, 'status');
  strategy.prepareForUpdate?.(old, next, subresource, { now, user });
  const meta = next.metadata as JsonMap;
  const uidError = uidChangeError(meta['uid'], old);
  checkNamespace(rt, meta, old.metadata.namespace);
  meta['name'] = old.metadata.name;
  const oldMeta = old.metadata as JsonMap;
  for (const key of [
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
  ]) {
    copyField(oldMeta, meta, key);
  }
  delete meta['managedFields'];
  delete meta['resourceVersion'];
  const generation = oldMeta['generation'];
  if (strategy.tracksGeneration && typeof generation === 'number') {
    meta['generation'] = contentChanged(rt, old, next) ? generation + 1 : generation;
  } else {
    copyField(oldMeta, meta, 'generation');
  }
  return { next, errors: uidError === undefined ? [] : [uidError] };
}

/**
 * A `/status` write: custom resources take only `.status` from the request; built-ins also take
 * metadata, but never owner references (old kubelets corrupted them through pods/status).
 */
function statusUpdate(rt: ResourceType, old: KubeObject, incoming: KubeObject): KubeObject {
  const next = cloneJson(old);
  copyField(incoming, next, 'status');
  if (rt.builtIn) {
    const meta = cloneJson(incoming.metadata) as JsonMap;
    copyField(old.metadata, meta, 'ownerReferences');
    next.metadata = meta;
  }
  return next;
}

/** `to[key] = from[key]`, deleting it from `to` when `from` has none. */
function copyField(from: JsonMap, to: JsonMap, key: string): void {
  if (from[key] === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- mirrors an absent field
    delete to[key];
  } else {
    to[key] = cloneJson(from[key]);
  }
}

/** Anything outside metadata (and outside status, when that is a subresource) differs. */
function contentChanged(rt: ResourceType, a: KubeObject, b: KubeObject): boolean {
  return !jsonEqual(content(rt, a), content(rt, b));
}

function content(rt: ResourceType, obj: KubeObject): JsonMap {
  const rest: JsonMap = { ...obj };
  delete rest['metadata'];
  if (hasStatusSubresource(rt)) delete rest['status'];
  return rest;
}
