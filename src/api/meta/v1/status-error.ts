/**
 * StatusError: the one error class that crosses the API boundary. Storage and the API server throw
 * it, the HTTP layer turns it into a `Status` body with `toStatus()`, and the client rebuilds it with
 * `fromStatus()`, so callers branch on `isStatusError(e, 'NotFound')` and never parse messages.
 *
 * The static constructors reproduce apimachinery's `k8s.io/apimachinery/pkg/api/errors` helpers and
 * the API server's negotiation errors, message for message.
 */
import { aggregateFieldErrors, fieldErrorBody, type FieldError } from './field-error.js';
import { goQuote } from '../../../lib/go/quote.js';
import { StatusReason, type Status, type StatusCause, type StatusDetails } from './status.js';
import { errorText } from '../../../lib/error-text.js';

/** schema.GroupResource: `{group: '', resource: 'pods'}` prints as `pods`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** schema.GroupKind: `{group: 'machineconfiguration.openshift.io', kind: 'MachineConfig'}`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** The Conflict text every optimistic-concurrency failure carries (OptimisticLockErrorMsg). */
const OptimisticLockErrorMsg =
  'the object has been modified; please apply your changes to the latest version and try again';

export interface StatusErrorInit {
  readonly message: string;
  readonly reason: StatusReason;
  readonly code: number;
  readonly details?: StatusDetails;
}

/** `resource.group`, or just `resource` for the core group (GroupResource.String()). */
export function formatGroupResource(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** `Kind.group`, or just `Kind` for the core group (GroupKind.String()). */
export function formatGroupKind(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

export class StatusError extends Error {
  readonly reason: StatusReason;
  readonly code: number;
  readonly details: StatusDetails | undefined;

  constructor(init: StatusErrorInit, options?: ErrorOptions) {
    super(init.message, options);
    this.name = 'StatusError';
    this.reason = init.reason;
    this.code = init.code;
    this.details = init.details;
  }

  /** The wire form, keys in Go's order, empty fields left out. */
  toStatus(): Status {
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' };
    if (this.message !== '') status.message = this.message;
    if (this.reason !== '') status.reason = this.reason;
    if (this.details !== undefined) status.details = compactDetails(this.details);
    if (this.code !== 0) status.code = this.code;
    return status;
  }

  /** Rebuilds the error a server sent; an unknown reason is kept as is. */
  static fromStatus(status: Status): StatusError {
    const init: StatusErrorInit = {
      message: status.message ?? '',
      reason: (status.reason ?? '') as StatusReason,
      code: status.code ?? 0,
      ...(status.details !== undefined ? { details: status.details } : {}),
    };
    return new StatusError(init);
  }

  /** 404 `<resource>[.<group>] "<name>" not found`. */
  static notFound(gr: GroupResource, name: string): StatusError {
    return new StatusError({
      message: `${formatGroupResource(gr)} ${goQuote(name)} not found`,
      reason: StatusReason.NotFound,
      code: 404,
      details: resourceDetails(gr, name),
    });
  }

  /** 409 `<resource>[.<group>] "<name>" already exists`. */
  static alreadyExists(gr: GroupResource, name: string): StatusError {
    return new StatusError({
      message: `${formatGroupResource(gr)} ${goQuote(name)} already exists`,
      reason: StatusReason.AlreadyExists,
      code: 409,
      details: resourceDetails(gr, name),
    });
  }

  /** 409 `Operation cannot be fulfilled on <resource>.<group> "<name>": <cause>`. */
  static conflict(gr: GroupResource, name: string, cause = OptimisticLockErrorMsg): StatusError {
    return new StatusError({
      message: `Operation cannot be fulfilled on ${formatGroupResource(gr)} ${goQuote(name)}: ${cause}`,
      reason: StatusReason.Conflict,
      code: 409,
      details: resourceDetails(gr, name),
    });
  }

  /** 422 `<Kind>.<group> "<name>" is invalid: <field errors>`, one cause per field error. */
  static invalid(gk: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
    const causes: StatusCause[] = errors.map((e) => ({
      reason: e.type,
      message: fieldErrorBody(e),
      field: e.field,
    }));
    const aggregate = aggregateFieldErrors(errors);
    const head = `${formatGroupKind(gk)} ${goQuote(name)} is invalid`;
    return new StatusError({
      message: aggregate === undefined ? head : `${head}: ${aggregate}`,
      reason: StatusReason.Invalid,
      code: 422,
      details: { name, group: gk.group, kind: gk.kind, causes },
    });
  }

  /** 400 with the message as given (e.g. `strict decoding error: unknown field "sepc"`). */
  static badRequest(message: string): StatusError {
    return new StatusError({ message, reason: StatusReason.BadRequest, code: 400 });
  }

  /** 403 `<resource>.<group> "<name>" is forbidden: <reason>` (forms without name/resource too). */
  static forbidden(gr: GroupResource, name: string, reason: string): StatusError {
    let message: string;
    if (gr.group === '' && gr.resource === '') message = `forbidden: ${reason}`;
    else if (name === '') message = `${formatGroupResource(gr)} is forbidden: ${reason}`;
    else message = `${formatGroupResource(gr)} ${goQuote(name)} is forbidden: ${reason}`;
    return new StatusError({
      message,
      reason: StatusReason.Forbidden,
      code: 403,
      details: resourceDetails(gr, name),
    });
  }

  /**
   * 401. The API server's authentication failure says `Unauthorized`; an explicit empty message
   * becomes `not authorized`, as NewUnauthorized does.
   */
  static unauthorized(message = 'Unauthorized'): StatusError {
    return new StatusError({
      message: message === '' ? 'not authorized' : message,
      reason: StatusReason.Unauthorized,
      code: 401,
    });
  }

  /** 410 Gone with the message as given. */
  static gone(message: string): StatusError {
    return new StatusError({ message, reason: StatusReason.Gone, code: 410 });
  }

  /** 410 Expired, what a watch from a compacted revision gets. */
  static expired(message: string): StatusError {
    return new StatusError({ message, reason: StatusReason.Expired, code: 410 });
  }

  /** 410 Expired `too old resource version: <requested> (<oldest - 1>)`. */
  static tooOldResourceVersion(requested: number, oldestAvailable: number): StatusError {
    return StatusError.expired(`too old resource version: ${requested} (${oldestAvailable - 1})`);
  }

  /**
   * 429; `details` is always present (as upstream) and carries retryAfterSeconds when non-zero and
   * any causes, e.g. the eviction API's DisruptionBudget cause.
   */
  static tooManyRequests(
    message: string,
    retryAfterSeconds = 0,
    causes: readonly StatusCause[] = [],
  ): StatusError {
    const details: StatusDetails = {};
    if (causes.length > 0) details.causes = [...causes];
    if (retryAfterSeconds !== 0) details.retryAfterSeconds = retryAfterSeconds;
    return new StatusError({ message, reason: StatusReason.TooManyRequests, code: 429, details });
  }

  /** The eviction API's answer when a PodDisruptionBudget blocks the eviction. */
  static disruptionBudgetViolated(
    pdbName: string,
    desiredHealthy: number,
    currentHealthy: number,
  ): StatusError {
    return StatusError.tooManyRequests(
      "Cannot evict pod as it would violate the pod's disruption budget.",
      0,
      [
        {
          reason: 'DisruptionBudget',
          message: `The disruption budget ${pdbName} needs ${desiredHealthy} healthy pods and has ${currentHealthy} currently`,
        },
      ],
    );
  }

  /** 415 for a patch/body content type the resource does not accept. */
  static unsupportedMediaType(accepted: readonly string[]): StatusError {
    return new StatusError({
      message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      reason: StatusReason.UnsupportedMediaType,
      code: 415,
    });
  }

  /** 413 `Request entity too large: <message>` (NewRequestEntityTooLargeError). */
  static requestEntityTooLarge(message: string): StatusError {
    return new StatusError({
      message: `Request entity too large: ${message}`,
      reason: StatusReason.RequestEntityTooLarge,
      code: 413,
    });
  }

  /** 406 when no Accept entry can be served. */
  static notAcceptable(accepted: readonly string[]): StatusError {
    return new StatusError({
      message: `only the following media types are accepted: ${accepted.join(', ')}`,
      reason: StatusReason.NotAcceptable,
      code: 406,
    });
  }

  /** 405 `<verb> is not supported on resources of kind "<resource>.<group>"`. */
  static methodNotSupported(gr: GroupResource, action: string): StatusError {
    const details: StatusDetails = { kind: gr.resource };
    if (gr.group !== '') details.group = gr.group;
    return new StatusError({
      message: `${action} is not supported on resources of kind ${goQuote(formatGroupResource(gr))}`,
      reason: StatusReason.MethodNotAllowed,
      code: 405,
      details,
    });
  }

  /** 500 `Internal error occurred: <cause>`, the cause message repeated as the single cause. */
  static internal(cause: unknown): StatusError {
    const text = errorText(cause);
    return new StatusError(
      {
        message: `Internal error occurred: ${text}`,
        reason: StatusReason.InternalError,
        code: 500,
        details: { causes: [{ message: text }] },
      },
      { cause },
    );
  }
}

/** True for a StatusError, and when `reason` is given, only for one with that reason. */
export function isStatusError(e: unknown, reason?: StatusReason): e is StatusError {
  return e instanceof StatusError && (reason === undefined || e.reason === reason);
}

function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  const details: StatusDetails = {};
  if (name !== '') details.name = name;
  if (gr.group !== '') details.group = gr.group;
  if (gr.resource !== '') details.kind = gr.resource;
  return details;
}

/** Drops empty strings/lists and zero numbers, as Go's omitempty does, keeping Go's key order. */
function compactDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name !== undefined && d.name !== '') out.name = d.name;
  if (d.group !== undefined && d.group !== '') out.group = d.group;
  if (d.kind !== undefined && d.kind !== '') out.kind = d.kind;
  if (d.uid !== undefined && d.uid !== '') out.uid = d.uid;
  if (d.causes !== undefined && d.causes.length > 0) out.causes = d.causes.map(compactCause);
  if (d.retryAfterSeconds !== undefined && d.retryAfterSeconds !== 0) {
    out.retryAfterSeconds = d.retryAfterSeconds;
  }
  return out;
}

function compactCause(c: StatusCause): StatusCause {
  const out: StatusCause = {};
  if (c.reason !== undefined && c.reason !== '') out.reason = c.reason;
  if (c.message !== undefined && c.message !== '') out.message = c.message;
  if (c.field !== undefined && c.field !== '') out.field = c.field;
  return out;
}
