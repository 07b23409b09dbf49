/**
 * `gates.httpProbe`: a URL that must answer 2xx (an application's health endpoint, a load
 * balancer's check). Asked once per pass for the pool, without following redirects: a redirect
 * or a URL that does not answer fails the gate. Within a node's soak a failure counts for a
 * revert of the soaking nodes, as the Prometheus gate's does.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { PoolGateKind } from './gate-kind.js';

const HttpProbeGateSchema = Type.Object(
  { url: Type.String({ pattern: '^https?://', maxLength: 2048 }) },
  { additionalProperties: false },
);
export type HttpProbeGate = Static<typeof HttpProbeGateSchema>;

/** The HTTP status the URL answered, or why it did not answer. */
export type HttpProbeAnswer =
  { readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string };

export const httpProbeGate: PoolGateKind<HttpProbeGate, HttpProbeAnswer> = {
  scope: 'pool',
  schema: HttpProbeGateSchema,
  countsForRevert: true,
  describe: (h) => `${h.url} answers 2xx`,
  judge(h, answer) {
    if (!answer.ok) return [`Health gate ${h.url} did not answer: ${answer.error}`];
    return answer.status >= 200 && answer.status < 300
      ? []
      : [`Health gate ${h.url} answered HTTP ${answer.status}, not 2xx`];
  },
};
