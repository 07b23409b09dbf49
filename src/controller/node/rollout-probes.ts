/**
 * The I/O behind a rollout policy's health gates: the Prometheus-style instant query (the Kured
 * model: the next node waits while it returns anything) and the pods matching the gate's selector
 * on a node. Answers are data for the pure decision (src/logic/rollout-policy/rollout-decision.ts);
 * a probe that cannot answer says why, and the decision treats that as a failing gate.
 */
import type { Pod } from '../../api/core/v1/pod.js';
import type { LabelSelector } from '../../api/meta/v1/label-selector.js';
import { Resources } from '../../api/resource-refs.js';
import { labelSelectorToString } from '../../api/meta/v1/label-selector-matching.js';
import type { PrometheusAnswer } from '../../logic/rollout-policy/rollout-decision.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { errorText } from '../../lib/error-text.js';

/** A query answer larger than this is not read (a gate needs a few series, not a dump). */
const MaxAnswerBytes = 1024 * 1024;
const QueryTimeoutMs = 5000;

interface QueryAnswer {
  status?: unknown;
  error?: unknown;
  data?: { resultType?: unknown; result?: unknown };
}

/** `name{a="b",...}` of one series, as Prometheus prints it. */
function seriesText(item: unknown): string {
  const metric = (item as { metric?: unknown } | null)?.metric;
  if (metric === null || typeof metric !== 'object') return '{}';
  const labels = Object.entries(metric as Record<string, unknown>);
  const name = labels.find(([k]) => k === '__name__')?.[1];
  const rest = labels
    .filter(([k]) => k !== '__name__')
    .map(([k, v]) => `${k}=${JSON.stringify(String(v))}`);
  return `${typeof name === 'string' ? name : ''}{${rest.join(',')}}`;
}

export async function queryPrometheus(
  baseUrl: string,
  query: string,
  signal: AbortSignal,
): Promise<PrometheusAnswer> {
  const url = `${baseUrl.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(query)}`;
  try {
    const res = await fetch(url, {
      redirect: 'error',
      headers: { accept: 'application/json' },
      signal: AbortSignal.any([signal, AbortSignal.timeout(QueryTimeoutMs)]),
    });
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > MaxAnswerBytes)
      return { ok: false, error: `answer of ${length} bytes is too large` };
    const text = await res.text();
    if (text.length > MaxAnswerBytes)
      return { ok: false, error: `answer of ${text.length} bytes is too large` };
    let body: QueryAnswer;
    try {
      body = JSON.parse(text) as QueryAnswer;
    } catch {
      return { ok: false, error: `HTTP ${res.status}: the answer is not JSON` };
    }
    if (!res.ok || body.status !== 'success')
      return {
        ok: false,
        error: `HTTP ${res.status}: ${typeof body.error === 'string' ? body.error.slice(0, 200) : 'status is not success'}`,
      };
    const result = body.data?.result;
    if (!Array.isArray(result)) return { ok: false, error: 'the answer has no result list' };
    // A scalar or string result is a single value, not a list of firing series.
    if (body.data?.resultType !== 'vector' && body.data?.resultType !== 'matrix')
      return { ok: false, error: `resultType ${String(body.data?.resultType)} is not a vector` };
    return { ok: true, series: result.map(seriesText) };
  } catch (e) {
    if (signal.aborted) throw e;
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
    return { ok: false, error: `${errorText(e)}${cause}` };
  }
}

function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** Names of the pods on `node` matching `selector` that are not Ready (finished pods excluded). */
export async function podsNotReady(
  client: ResourceClient,
  node: string,
  selector: LabelSelector,
  signal: AbortSignal,
): Promise<string[]> {
  const pods = await client.list<Pod>(Resources.pod, {
    labelSelector: labelSelectorToString(selector),
    fieldSelector: `spec.nodeName=${node},status.phase!=Succeeded,status.phase!=Failed`,
    signal,
  });
  return pods.items
    .filter((p) => !isPodReady(p))
    .map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`);
}
