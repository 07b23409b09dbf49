/**
 * The I/O behind a rollout policy's health gates, one probe per gate kind that needs one
 * (src/logic/rollout-policy/gates/): the pods matching a selector on a node, a Prometheus-style
 * instant query (the Kured model: the next node waits while it returns anything), a URL that must
 * answer 2xx. The table is keyed by the gate kinds, so a new kind with a probe does not compile
 * until it has a row here. Answers are data for the pure decision; a probe that cannot answer
 * says why, and the gate's judgement treats that as a failure.
 */
import type { Pod } from '../../api/core/v1/pod.js';
import type { LabelSelector } from '../../api/meta/v1/label-selector.js';
import { Resources } from '../../api/resource-refs.js';
import { labelSelectorToString } from '../../api/meta/v1/label-selector-matching.js';
import {
  configuredGates,
  GateKinds,
  type GateAnswer,
  type GateAnswers,
  type GateConfig,
  type HealthGates,
  type ProbedGateName,
} from '../../logic/rollout-policy/gates/gate-kinds.js';
import type { HttpProbeAnswer } from '../../logic/rollout-policy/gates/http-probe-gate.js';
import type { PrometheusAnswer } from '../../logic/rollout-policy/gates/prometheus-gate.js';
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

/** A probe that got no answer: why, with the network error's cause; an abort is rethrown. */
function unanswered(
  e: unknown,
  signal: AbortSignal,
): { readonly ok: false; readonly error: string } {
  if (signal.aborted) throw e;
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return { ok: false, error: `${errorText(e)}${cause}` };
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
    return unanswered(e, signal);
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

/** Asks `url` once, without following a redirect; any status is an answer, 2xx or not. */
export async function probeHttp(url: string, signal: AbortSignal): Promise<HttpProbeAnswer> {
  try {
    const res = await fetch(url, {
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(QueryTimeoutMs)]),
    });
    // Only the status counts: the body is not read.
    await res.body?.cancel();
    return { ok: true, status: res.status };
  } catch (e) {
    return unanswered(e, signal);
  }
}

export interface GateProbeContext {
  readonly client: ResourceClient;
  readonly signal: AbortSignal;
}

type NodeProbe<K extends ProbedGateName> = (
  config: GateConfig<K>,
  node: string,
  ctx: GateProbeContext,
) => Promise<GateAnswer<K>>;
type PoolProbe<K extends ProbedGateName> = (
  config: GateConfig<K>,
  ctx: GateProbeContext,
) => Promise<GateAnswer<K>>;

/** How each gate kind that reads more than the Node object is asked. */
const GateProbes: {
  readonly [K in ProbedGateName]: (typeof GateKinds)[K]['scope'] extends 'node'
    ? NodeProbe<K>
    : PoolProbe<K>;
} = {
  podSelector: (selector, node, ctx) => podsNotReady(ctx.client, node, selector, ctx.signal),
  prometheus: (p, ctx) => queryPrometheus(p.url, p.query, ctx.signal),
  httpProbe: (h, ctx) => probeHttp(h.url, ctx.signal),
};

function isProbed(name: string): name is ProbedGateName {
  return Object.hasOwn(GateProbes, name);
}

/** Asks every gate `gates` configures that has a probe: node gates on each of `nodes`. */
export async function askGates(
  gates: HealthGates | undefined,
  nodes: readonly string[],
  ctx: GateProbeContext,
): Promise<GateAnswers> {
  const answers: Record<string, unknown> = {};
  for (const { name, config } of configuredGates(gates)) {
    if (!isProbed(name)) continue;
    // The table's type pairs each probe with its gate's config; the loop sees them as a union.
    const probe = GateProbes[name] as (...args: unknown[]) => Promise<unknown>;
    if (GateKinds[name].scope === 'node') {
      const byNode = new Map<string, unknown>();
      for (const node of nodes) byNode.set(node, await probe(config, node, ctx));
      answers[name] = byNode;
    } else {
      answers[name] = await probe(config, ctx);
    }
  }
  return answers;
}
