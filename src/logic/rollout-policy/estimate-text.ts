/**
 * A pool's `RolloutEstimate` condition as `mco rollout status` and the dashboard say it, by the
 * reader's clock: `about 3m left (done by 21:40:00 UTC)`, or why there is no figure yet.
 */
import type { McoCondition } from '../../api/meta/v1/condition.js';
import { RolloutEstimateCondition } from '../../api/machineconfiguration/v1/rollout-policy.js';

/**
 * What is left, as coarse as a reader needs it and a followed line can bear (it is printed again
 * only when it changes): `40s` (tens of seconds), `3m`, `1h5m`.
 */
export function roughDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${Math.max(10, Math.round(s / 10) * 10)}s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h${m % 60 === 0 ? '' : `${m % 60}m`}`;
}

/** The condition's text; undefined without a figure, or when the pool is not rolling out. */
export function estimateText(
  conditions: readonly McoCondition[] | undefined,
  now: number,
): string | undefined {
  const c = conditions?.find((x) => x.type === RolloutEstimateCondition && x.status === 'True');
  if (c === undefined) return undefined;
  const at = Date.parse(c.message ?? '');
  if (c.reason === 'BeyondWindows') return c.message ?? '';
  // Estimating, Held: no figure, and nothing to add to what the line says already.
  if (c.reason !== 'Estimated' || !Number.isFinite(at)) return undefined;
  const clock = new Date(at).toISOString().slice(11, 19);
  const day = new Date(at).toISOString().slice(0, 10);
  const when =
    day === new Date(now).toISOString().slice(0, 10) ? `${clock} UTC` : `${day} ${clock} UTC`;
  return at >= now
    ? `about ${roughDuration(at - now)} left (done by ${when})`
    : `expected done by ${when}, ${roughDuration(now - at)} ago`;
}
