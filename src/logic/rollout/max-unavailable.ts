/**
 * maxUnavailable of a pool (docs/reference/rollout.md §4.3): how many of its nodes may be
 * unavailable at once.
 * Ints are used as they are, `"N%"` of the node count rounds down, 0 means 1, and the arbiter pool
 * always updates one node at a time. Negative ints are kept (upstream never progresses then).
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { err, ok, type Result } from '../../lib/result.js';

export type MaxUnavailableError =
  | { readonly kind: 'NotAPercentage' }
  | { readonly kind: 'InvalidPercentage'; readonly value: string };

/** Messages of apimachinery's GetScaledValueFromIntOrPercent, prefixed as upstream logs them. */
export function describeMaxUnavailableError(e: MaxUnavailableError): string {
  const prefix = 'maxUnavailable: invalid value for IntOrString: ';
  switch (e.kind) {
    case 'NotAPercentage':
      return `${prefix}invalid type: string is not a percentage`;
    case 'InvalidPercentage':
      return `${prefix}invalid value ${JSON.stringify(e.value)}: strconv.Atoi: parsing ${JSON.stringify(e.value.slice(0, -1))}: invalid syntax`;
  }
}

/** Go's strconv.Atoi: optional sign, decimal digits only. */
function atoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number.parseInt(s, 10) : undefined;
}

export function maxUnavailable(
  pool: MachineConfigPool,
  nodeCount: number,
): Result<number, MaxUnavailableError> {
  if (pool.metadata.name === 'arbiter') return ok(1);
  const value = pool.spec?.maxUnavailable ?? 1;
  let n: number;
  if (typeof value === 'number') {
    n = value;
  } else {
    if (!value.endsWith('%')) return err({ kind: 'NotAPercentage' });
    const pct = atoi(value.slice(0, -1));
    if (pct === undefined) return err({ kind: 'InvalidPercentage', value });
    n = Math.floor((pct * nodeCount) / 100);
  }
  return ok(n === 0 ? 1 : n);
}

/**
 * How many drains may be wanted at once: the sum over pools of their maxUnavailable (a pool with
 * an invalid or negative value counts 0), and at least `minimum`. `nodesOf` gives a pool's nodes.
 */
export function concurrentDrains(
  pools: readonly MachineConfigPool[],
  nodesOf: (pool: MachineConfigPool) => number,
  minimum: number,
): number {
  let sum = 0;
  for (const pool of pools) {
    const max = maxUnavailable(pool, nodesOf(pool));
    if (max.ok && max.value > 0) sum += max.value;
  }
  return Math.max(minimum, sum);
}
