/**
 * The resource verbs over the ResourceStore: get, list (JSON, Table or PartialObjectMetadata),
 * watch, create (201), update, patch (201 when server-side apply creates), delete (the object, or a
 * Success Status once a custom resource is gone), deletecollection, and the pod eviction POST (201
 * Success). Writes pass dryRun / fieldManager / fieldValidation / force through and return the
 * store's warnings as `Warning: 299` headers.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { FieldErrorType } from '../../api/meta/v1/field-error.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type {
  DeleteOptions,
  KubeObject,
  ListResult,
  ResourceStore,
  UserInfo,
  WriteSubresource,
} from '../resource-store.js';
import { apiVersionOf } from '../resource-type.js';
import {
  checkPatchNesting,
  decodeDeleteOptions,
  decodeObjectBody,
  decodesProtobuf,
} from './body.js';
import {
  acceptedPatchTypes,
  negotiateObject,
  parseAccept,
  patchTypeOf,
  ServedMediaTypes,
  StreamedMediaTypes,
  type ResponseFormat,
} from './negotiate.js';
import { boolParam, includeObjectParam, intParam, listQuery, writeOptions } from './query.js';
import type { PodLogSource } from '../../ports/pod-log-source.js';
import { podLogOptions } from '../pod-logs.js';
import type { NodeResponse } from './direct-response.js';
import type { ResourceInfo } from './request-info.js';
import type { ResourceTarget } from './resource-target.js';
import {
  jsonListResponse,
  jsonResponse,
  methodNotAllowed,
  warningHeaders,
  yamlResponse,
} from './responses.js';
import { buildTable, partialObjectMetadata, printerFor } from './table.js';
import { serveWatch } from './watch.js';

export interface ResourceCall {
  readonly store: ResourceStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly request: Request;
  readonly url: URL;
  readonly info: ResourceInfo;
  readonly target: ResourceTarget;
  readonly user: UserInfo;
  /** The request body, read once. */
  readonly body: Uint8Array;
  /**
   * Aborts when the client goes away or the server shuts down (ends watches and log streams); made
   * on first call, since following the client's connection costs every request that never asks.
   */
  readonly signal: () => AbortSignal;
  /** Where `pods/log` streams from (the kubelet's part); none: no pod has a log. */
  readonly podLogs?: PodLogSource;
  /** Ends the connection at once (a watcher whose client does not read). */
  readonly dropConnection?: () => void;
  /** The Node response under the request, which a watch writes its events to directly. */
  readonly response?: NodeResponse;
}

/** The Status of a rejected `sendInitialEvents` watch, which makes client-go fall back to list+watch. */
function watchListForbidden(): StatusError {
  return new StatusError({
    message:
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    reason: 'Invalid',
    code: 422,
    details: {
      kind: 'ListOptions',
      group: 'meta.k8s.io',
      causes: [
        {
          reason: FieldErrorType.Forbidden,
          message:
            'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          field: 'sendInitialEvents',
        },
      ],
    },
  });
}

/** 422 for an apply patch without a fieldManager. */
function fieldManagerRequired(): StatusError {
  return StatusError.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
    { type: FieldErrorType.Required, field: 'fieldManager', detail: 'is required for apply patch' },
  ]);
}

function outputFormat(call: ResourceCall): ResponseFormat {
  const format = negotiateObject(parseAccept(call.request.headers.get('Accept')));
  if (format === undefined) throw StatusError.notAcceptable(ServedMediaTypes);
  return format;
}

/** A body in the negotiated encoding (YAML when asked for, JSON otherwise). */
function encoded(
  format: ResponseFormat,
  status: number,
  body: unknown,
  headers?: Headers,
): Response {
  return format.kind === 'yaml'
    ? yamlResponse(status, body, headers)
    : jsonResponse(status, body, headers);
}

/** One object in the negotiated format. */
function objectBody(call: ResourceCall, object: KubeObject, format: ResponseFormat): unknown {
  if (format.kind === 'json' || format.kind === 'yaml') return object;
  if (format.kind === 'partial') return partialObjectMetadata(object, format.apiVersion);
  return buildTable(
    printerFor(call.target.rt),
    [object],
    { resourceVersion: object.metadata.resourceVersion },
    {
      apiVersion: format.apiVersion,
      includeObject: includeObjectParam(call.url.searchParams),
      nowMs: call.clock.now(),
    },
  );
}

function listMeta(result: ListResult): Record<string, unknown> {
  const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue !== undefined && result.continue !== '') meta['continue'] = result.continue;
  if (result.remainingItemCount !== undefined)
    meta['remainingItemCount'] = result.remainingItemCount;
  return meta;
}

async function list(call: ResourceCall, format: ResponseFormat): Promise<Response> {
  const { rt, namespace } = call.target;
  const result = await call.store.list(rt, namespace, listQuery(call.url.searchParams));
  if (format.kind === 'table') {
    return jsonResponse(
      200,
      buildTable(printerFor(rt), result.items, result, {
        apiVersion: format.apiVersion,
        includeObject: includeObjectParam(call.url.searchParams),
        nowMs: call.clock.now(),
      }),
    );
  }
  if (format.kind === 'partial') {
    return jsonResponse(200, {
      kind: 'PartialObjectMetadataList',
      apiVersion: format.apiVersion,
      metadata: listMeta(result),
      items: result.items.map((o) => partialObjectMetadata(o, format.apiVersion)),
    });
  }
  const list = { kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: listMeta(result) };
  if (format.kind === 'json') return jsonListResponse(list, result.items);
  return encoded(format, 200, { ...list, items: result.items });
}

async function watch(call: ResourceCall, format: ResponseFormat): Promise<Response> {
  const q = call.url.searchParams;
  if (format.kind === 'yaml') throw StatusError.notAcceptable(StreamedMediaTypes);
  if (q.has('sendInitialEvents')) throw watchListForbidden();
  const selectors = [q.get('fieldSelector') ?? ''];
  // the legacy /watch/…/<name> form watches one object
  if (call.target.name !== '') selectors.push(`metadata.name=${call.target.name}`);
  const fieldSelector = selectors.filter((s) => s !== '').join(',');
  const labelSelector = q.get('labelSelector');
  const resourceVersion = q.get('resourceVersion');
  return serveWatch({
    store: call.store,
    rt: call.target.rt,
    namespace: call.target.namespace,
    query: {
      ...(labelSelector !== null ? { labelSelector } : {}),
      ...(fieldSelector !== '' ? { fieldSelector } : {}),
      ...(resourceVersion !== null ? { resourceVersion } : {}),
      allowWatchBookmarks: boolParam(q, 'allowWatchBookmarks'),
    },
    timeoutSeconds: intParam(q, 'timeoutSeconds'),
    format,
    includeObject: includeObjectParam(q),
    clock: call.clock,
    log: call.log,
    requestSignal: call.signal(),
    ...(call.dropConnection === undefined ? {} : { dropConnection: call.dropConnection }),
    ...(call.response === undefined ? {} : { response: call.response }),
  });
}

function bodyObject(call: ResourceCall, kind = call.target.rt.kind): Record<string, unknown> {
  const { rt } = call.target;
  const decoded = decodeObjectBody(call.body, call.request.headers.get('Content-Type'), {
    kind,
    builtIn: rt.builtIn,
    acceptsProtobuf: decodesProtobuf(rt) && kind === rt.kind,
  });
  if (!decoded.ok) throw decoded.error;
  return decoded.value;
}

/** A write's answer: the object in the negotiated format, with the store's warnings. */
function written({
  call,
  format,
  status,
  object,
  warnings,
}: {
  readonly call: ResourceCall;
  readonly format: ResponseFormat;
  readonly status: number;
  readonly object: KubeObject;
  readonly warnings: string[];
}): Response {
  return encoded(format, status, objectBody(call, object, format), warningHeaders(warnings));
}

async function create(call: ResourceCall, format: ResponseFormat): Promise<Response> {
  const { rt, namespace } = call.target;
  const body = bodyObject(call);
  const warnings: string[] = [];
  const object = await call.store.create(
    rt,
    namespace,
    body,
    writeOptions(
      call.url.searchParams,
      call.user,
      warnings,
      call.request.headers.get('User-Agent'),
    ),
  );
  return written({ call, format, status: 201, object, warnings });
}

async function evict(call: ResourceCall): Promise<Response> {
  const body = bodyObject(call, 'Eviction');
  const warnings: string[] = [];
  await call.store.evict(
    call.target.namespace ?? '',
    call.target.name,
    body,
    writeOptions(
      call.url.searchParams,
      call.user,
      warnings,
      call.request.headers.get('User-Agent'),
    ),
  );
  return jsonResponse(
    201,
    { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 },
    warningHeaders(warnings),
  );
}

const asSubresource = (t: ResourceTarget): { subresource?: WriteSubresource } =>
  t.subresource === 'status' || t.subresource === 'approval' ? { subresource: t.subresource } : {};

async function update(call: ResourceCall, format: ResponseFormat): Promise<Response> {
  const { rt, namespace, name } = call.target;
  const body = bodyObject(call);
  const warnings: string[] = [];
  const object = await call.store.update(rt, namespace, name, body, {
    ...writeOptions(
      call.url.searchParams,
      call.user,
      warnings,
      call.request.headers.get('User-Agent'),
    ),
    ...asSubresource(call.target),
  });
  return written({ call, format, status: 200, object, warnings });
}

async function patch(call: ResourceCall, format: ResponseFormat): Promise<Response> {
  const { rt, namespace, name } = call.target;
  const type = patchTypeOf(call.request.headers.get('Content-Type'), rt.builtIn);
  if (type === undefined) throw StatusError.unsupportedMediaType(acceptedPatchTypes(rt.builtIn));
  const q = call.url.searchParams;
  if (type === 'apply' && (q.get('fieldManager') ?? '') === '') throw fieldManagerRequired();
  checkPatchNesting(call.body, type);
  const warnings: string[] = [];
  const result = await call.store.patch(
    rt,
    namespace,
    name,
    { type, body: new TextDecoder().decode(call.body) },
    {
      ...writeOptions(q, call.user, warnings, call.request.headers.get('User-Agent')),
      ...asSubresource(call.target),
      ...(q.has('force') ? { force: boolParam(q, 'force') } : {}),
    },
  );
  return written({
    call,
    format,
    status: result.created ? 201 : 200,
    object: result.object,
    warnings,
  });
}

type MutableDeleteOptions = { -readonly [K in keyof DeleteOptions]: DeleteOptions[K] };

/** DeleteOptions from the body, overridden by query parameters as upstream merges them. */
function deleteOptions(call: ResourceCall): { options: DeleteOptions; dryRun: boolean } {
  const { dryRun: bodyDryRun, ...fromBody } = decodeDeleteOptions(call.body);
  const options: MutableDeleteOptions = { ...fromBody };
  const q = call.url.searchParams;
  const policy = q.get('propagationPolicy');
  if (policy === 'Background' || policy === 'Foreground' || policy === 'Orphan')
    options.propagationPolicy = policy;
  const grace = intParam(q, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  return { options, dryRun: bodyDryRun === true || q.getAll('dryRun').includes('All') };
}

async function remove(call: ResourceCall, format: ResponseFormat): Promise<Response> {
  const { rt, namespace, name } = call.target;
  const { options, dryRun } = deleteOptions(call);
  const warnings: string[] = [];
  const result = await call.store.delete(rt, namespace, name, {
    ...writeOptions(
      call.url.searchParams,
      call.user,
      warnings,
      call.request.headers.get('User-Agent'),
    ),
    dryRun,
    ...options,
  });
  if (!result.deleted || rt.builtIn)
    return written({ call, format, status: 200, object: result.object, warnings });
  // custom resources answer a finished delete with a Status naming what went away
  const details: Record<string, string> = { name };
  if (rt.group !== '') details['group'] = rt.group;
  details['kind'] = rt.plural;
  details['uid'] = result.object.metadata.uid ?? '';
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  return encoded(format, 200, status, warningHeaders(warnings));
}

async function removeCollection(call: ResourceCall): Promise<Response> {
  const { rt, namespace } = call.target;
  const { options, dryRun } = deleteOptions(call);
  const found = await call.store.list(rt, namespace, listQuery(call.url.searchParams));
  const warnings: string[] = [];
  const items: KubeObject[] = [];
  for (const item of found.items) {
    const result = await call.store.delete(rt, item.metadata.namespace, item.metadata.name ?? '', {
      ...writeOptions(
        call.url.searchParams,
        call.user,
        warnings,
        call.request.headers.get('User-Agent'),
      ),
      dryRun,
      ...options,
    });
    items.push(result.object);
  }
  return jsonResponse(
    200,
    {
      kind: rt.listKind,
      apiVersion: apiVersionOf(rt),
      metadata: { resourceVersion: found.resourceVersion },
      items,
    },
    warningHeaders(warnings),
  );
}

/** `pods/<name>/log`: the container's log as plain text, streamed while `follow` goes on. */
async function podLog(call: ResourceCall): Promise<Response> {
  const { rt, namespace, name } = call.target;
  const pod = await call.store.get(rt, namespace, name);
  const options = podLogOptions(call.url.searchParams, pod, call.clock.now());
  if (call.podLogs === undefined)
    throw StatusError.badRequest(
      `container ${JSON.stringify(options.container)} in pod ${JSON.stringify(name)}: this API server serves no container logs`,
    );
  const body = await call.podLogs.stream(pod, options, call.signal());
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/plain' } });
}

/** Runs the request's verb. */
export async function serveResource(call: ResourceCall): Promise<Response> {
  // negotiated before acting, so an unacceptable Accept never leaves a write behind
  const format = outputFormat(call);
  switch (call.info.verb) {
    case 'get': {
      if (call.target.subresource === 'log') return podLog(call);
      const { rt, namespace, name } = call.target;
      return encoded(
        format,
        200,
        objectBody(call, await call.store.get(rt, namespace, name), format),
      );
    }
    case 'list':
      return list(call, format);
    case 'watch':
      return watch(call, format);
    case 'create':
      return call.target.subresource === 'eviction' ? evict(call) : create(call, format);
    case 'update':
      return update(call, format);
    case 'patch':
      return patch(call, format);
    case 'delete':
      return remove(call, format);
    case 'deletecollection':
      return removeCollection(call);
    default:
      throw methodNotAllowed();
  }
}
