/**
 * `gates.prometheus`: a Prometheus-style instant query that must return nothing (the Kured model:
 * the next node waits while an alert fires). Asked once per pass for the pool; a query that cannot
 * be asked fails the gate. Within a node's soak a failure counts for a revert of the soaking nodes.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { PoolGateKind } from './gate-kind.js';

const PrometheusGateSchema = Type.Object(
  {
    url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
    query: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);
export type PrometheusGate = Static<typeof PrometheusGateSchema>;

/** What the query answered: the series it returned, or why it could not ask. */
export type PrometheusAnswer =
  | { readonly ok: true; readonly series: readonly string[] }
  | { readonly ok: false; readonly error: string };

export const prometheusGate: PoolGateKind<PrometheusGate, PrometheusAnswer> = {
  scope: 'pool',
  schema: PrometheusGateSchema,
  countsForRevert: true,
  describe: (p) => `query ${p.query} at ${p.url} returns nothing`,
  judge(_p, answer) {
    if (!answer.ok) return [`Health gate query failed: ${answer.error}`];
    const { series } = answer;
    return series.length === 0
      ? []
      : [`Health gate query returned ${series.length} series: ${series.slice(0, 5).join(', ')}`];
  },
};
