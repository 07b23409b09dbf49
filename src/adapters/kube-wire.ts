/**
 * What both ResourceClient implementations (the lean one on node:http(s), https-resource-client.ts,
 * and the one on @kubernetes/client-node, kube-client.ts) say the same way on the wire: resource
 * paths, patch content types, query parameters in the generated client's order, and the
 * StatusError a failed answer becomes: a Status body is rebuilt as the error the server threw;
 * anything else (an empty 401, a proxy's text, a JSON body that is not a Status) becomes
 * apimachinery's NewGenericServerResponse for the code, as client-go reports it.
 */
import { StatusError } from '../api/meta/v1/status-error.js';
import { StatusReason, type Status, type StatusDetails } from '../api/meta/v1/status.js';
import type { ClientList, PatchKind, ResourceRef } from '../ports/resource-client.js';

export const PatchContentType: Readonly<Record<PatchKind, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** `/api/v1[/namespaces/ns]/plural[/name]` or `/apis/g/v[/namespaces/ns]/plural[/name]`. */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns =
    ref.namespaced && namespace !== undefined && namespace !== ''
      ? `/namespaces/${encodeURIComponent(namespace)}`
      : '';
  const tail = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${base}${ns}/${ref.plural}${tail}`;
}

/** A query string (`?a=1&b=2`, or '') from the defined values, in the given order. */
export function queryString(
  params: Readonly<Record<string, string | number | boolean | undefined>>,
): string {
  let out = '';
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  }
  return out;
}

/** A Status body, if `body` (a string or an object) is one. */
function parseStatus(body: unknown): Status | undefined {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  return v['kind'] === 'Status' ? v : undefined;
}

const GenericResponses: Record<number, { reason: StatusReason; message: string }> = {
  400: {
    reason: StatusReason.BadRequest,
    message: 'the server rejected our request for an unknown reason',
  },
  401: {
    reason: StatusReason.Unauthorized,
    message: 'the server has asked for the client to provide credentials',
  },
  404: {
    reason: StatusReason.NotFound,
    message: 'the server could not find the requested resource',
  },
  405: {
    reason: StatusReason.MethodNotAllowed,
    message: 'the server does not allow this method on the requested resource',
  },
  410: { reason: StatusReason.Expired, message: 'the server responded with 410 Gone' },
  422: {
    reason: StatusReason.Invalid,
    message: 'the server rejected our request due to an error in our request',
  },
  429: {
    reason: StatusReason.TooManyRequests,
    message: 'the server has received too many requests and has asked us to try again later',
  },
  504: {
    reason: StatusReason.Timeout,
    message:
      'the server was unable to return a response in the time allotted, but may still be processing the request',
  },
};

/**
 * apimachinery's NewGenericServerResponse: the error for a response with no Status body, e.g.
 * `the server could not find the requested resource (get nodes n1)`. 410 is reported as Expired,
 * which is what a watch that cannot resume means.
 */
export function genericServerResponse({
  code,
  verb,
  ref,
  name,
  serverMessage = '',
}: {
  readonly code: number;
  readonly verb: string;
  readonly ref: ResourceRef | undefined;
  readonly name: string | undefined;
  readonly serverMessage?: string | undefined;
}): StatusError {
  const known = GenericResponses[code];
  let reason: StatusReason = known?.reason ?? StatusReason.Unknown;
  let message =
    known?.message ??
    `the server responded with the status code ${code} but did not return more information`;
  if (code === 409) {
    reason = verb === 'POST' ? StatusReason.AlreadyExists : StatusReason.Conflict;
    message = 'the server reported a conflict';
  } else if (code === 403) {
    reason = StatusReason.Forbidden;
    message = serverMessage;
  } else if (known === undefined && code >= 500) {
    reason = StatusReason.InternalError;
    message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
  }
  return new StatusError({
    message: withTarget(message, verb, ref, name),
    reason,
    code,
    details: targetDetails(ref, name),
  });
}

function targetDetails(ref: ResourceRef | undefined, name: string | undefined): StatusDetails {
  return {
    ...(name === undefined || name === '' ? {} : { name }),
    ...(ref === undefined || ref.group === '' ? {} : { group: ref.group }),
    ...(ref === undefined ? {} : { kind: ref.plural }),
  };
}

/** Appends ` (get nodes n1)`, as NewGenericServerResponse does for a known resource. */
function withTarget(
  message: string,
  verb: string,
  ref: ResourceRef | undefined,
  name: string | undefined,
): string {
  if (ref === undefined) return message;
  const resource = ref.group === '' ? ref.plural : `${ref.plural}.${ref.group}`;
  const target = name === undefined || name === '' ? resource : `${resource} ${name}`;
  return `${message} (${verb.toLowerCase()} ${target})`;
}

/** The StatusError for a failed answer with HTTP `code` and `body` (text or decoded). */
export function statusErrorOf({
  code,
  body,
  verb,
  ref,
  name,
  cause,
}: {
  readonly code: number;
  readonly body: unknown;
  readonly verb: string;
  readonly ref: ResourceRef | undefined;
  readonly name: string | undefined;
  readonly cause?: unknown;
}): StatusError {
  const status = parseStatus(body);
  if (status !== undefined) {
    const rebuilt = StatusError.fromStatus(status);
    return new StatusError(
      {
        message: rebuilt.message,
        reason: rebuilt.reason,
        code: rebuilt.code === 0 ? code : rebuilt.code,
        ...(rebuilt.details === undefined ? {} : { details: rebuilt.details }),
      },
      cause === undefined ? undefined : { cause },
    );
  }
  return genericServerResponse({
    code,
    verb,
    ref,
    name,
    serverMessage: typeof body === 'string' ? body : '',
  });
}

/** A list as the API server answers it. */
export interface WireList<T> {
  readonly items?: T[] | null;
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

/** The port's list from the wire's: no items is an empty list, an empty `continue` is none. */
export function clientListOf<T>(list: WireList<T>): ClientList<T> {
  const cont = list.metadata?.continue;
  return {
    items: list.items ?? [],
    resourceVersion: list.metadata?.resourceVersion ?? '',
    ...(cont === undefined || cont === '' ? {} : { continue: cont }),
  };
}
