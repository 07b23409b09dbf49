/**
 * `GET /api/v1/namespaces/{ns}/pods/{name}/log` (docs/reference/kube-wire.md §12.1): the
 * PodLogOptions as the query gives them, checked as kube-apiserver checks them (422 on
 * PodLogOptions; 400 for a container the pod does not have). The logs themselves come from a
 * PodLogSource (src/ports/pod-log-source.ts), which a real API server reaches at the kubelet.
 */
import { FieldErrorType, type FieldError } from '../api/meta/v1/field-error.js';
import { StatusError } from '../api/meta/v1/status-error.js';
import type { PodLogOptions } from '../ports/pod-log-source.js';
import type { KubeObject } from './resource-store.js';

/** Go's strconv.ParseBool, as the query parameter codec uses it. */
function parseBool(value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw StatusError.badRequest(
    `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
  );
}

function parseInt64(value: string): number {
  if (!/^[+-]?\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw StatusError.badRequest(
      `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`,
    );
  return Number(value);
}

/** RFC 3339 (seconds precision or finer), as metav1.Time accepts it. */
function parseTime(value: string): number {
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms))
    throw StatusError.badRequest(
      `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`,
    );
  return ms;
}

const containersOf = (pod: KubeObject): string[] => {
  const spec = pod['spec'] as { containers?: { name?: unknown }[] } | undefined;
  return (spec?.containers ?? []).map((c) => (typeof c.name === 'string' ? c.name : ''));
};

/** pkg/registry/core/pod's validateContainer: the named one, or the only one. */
function containerOf(pod: KubeObject, requested: string): string {
  const name = pod.metadata.name ?? '';
  const containers = containersOf(pod);
  if (requested !== '') {
    if (!containers.includes(requested))
      throw StatusError.badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (containers.length === 1) return containers[0] ?? '';
  if (containers.length === 0)
    throw StatusError.badRequest(`a container name must be specified for pod ${name}`);
  throw StatusError.badRequest(
    `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`,
  );
}

/**
 * The options of a log request for `pod`, validated as ValidatePodLogOptions does; `nowMs` turns
 * sinceSeconds into a time.
 */
export function podLogOptions(q: URLSearchParams, pod: KubeObject, nowMs: number): PodLogOptions {
  const get = (name: string): string | undefined => q.get(name) ?? undefined;
  const bool = (name: string): boolean => {
    const v = get(name);
    return v === undefined ? false : parseBool(v);
  };
  const int = (name: string): number | undefined => {
    const v = get(name);
    return v === undefined ? undefined : parseInt64(v);
  };
  const tailLines = int('tailLines');
  const limitBytes = int('limitBytes');
  const sinceSeconds = int('sinceSeconds');
  const sinceTimeText = get('sinceTime');
  const sinceTime = sinceTimeText === undefined ? undefined : parseTime(sinceTimeText);
  const errors: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0)
    errors.push({
      type: FieldErrorType.Invalid,
      field: 'tailLines',
      badValue: tailLines,
      detail: 'must be greater than or equal to 0',
    });
  if (limitBytes !== undefined && limitBytes < 1)
    errors.push({
      type: FieldErrorType.Invalid,
      field: 'limitBytes',
      badValue: limitBytes,
      detail: 'must be greater than 0',
    });
  if (sinceSeconds !== undefined && sinceTime !== undefined)
    errors.push({
      type: FieldErrorType.Forbidden,
      field: '',
      detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified',
    });
  else if (sinceSeconds !== undefined && sinceSeconds < 1)
    errors.push({
      type: FieldErrorType.Invalid,
      field: 'sinceSeconds',
      badValue: sinceSeconds,
      detail: 'must be greater than 0',
    });
  if (errors.length > 0)
    throw StatusError.invalid(
      { group: '', kind: 'PodLogOptions' },
      pod.metadata.name ?? '',
      errors,
    );
  const sinceMs = sinceSeconds !== undefined ? nowMs - sinceSeconds * 1000 : sinceTime;
  return {
    container: containerOf(pod, get('container') ?? ''),
    follow: bool('follow'),
    previous: bool('previous'),
    timestamps: bool('timestamps'),
    ...(sinceMs === undefined ? {} : { sinceMs }),
    ...(tailLines === undefined ? {} : { tailLines }),
    ...(limitBytes === undefined ? {} : { limitBytes }),
  };
}
