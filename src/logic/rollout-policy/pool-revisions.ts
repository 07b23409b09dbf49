/**
 * A pool's revisions, as `kubectl rollout history` numbers a Deployment's: the rendered configs the
 * render controller made for the pool (owned by it), oldest first, numbered from 1. Rendered
 * configs are never deleted by the controllers, so the numbers hold until an administrator prunes
 * one; each listing says which revision the pool rolls out now and how many nodes run each.
 */
import type { Node } from '../../api/core/v1/node.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { err, ok, type Result } from '../../lib/result.js';
import { activeRollback } from './pool-rollback.js';
import { changeCause } from '../audit/node-update-record.js';
import { configChanges, readSourceStamps } from '../audit/source-stamps.js';

export interface PoolRevision {
  readonly revision: number;
  readonly name: string;
  readonly created: string;
  /** Nodes of the pool whose current config this is. */
  readonly nodes: number;
  readonly notes: readonly string[];
  /**
   * Why this config was made: the MachineConfigs that differ from the previous revision's and who
   * changed each (`50-x changed by alice`), from the stamps frozen on both (update audit); ''
   * for the first revision, or when either has none.
   */
  readonly changeCause: string;
}

function ownedBy(mc: MachineConfig, pool: MachineConfigPool): boolean {
  return (mc.metadata.ownerReferences ?? []).some(
    (o) => o.kind === 'MachineConfigPool' && o.name === pool.metadata.name,
  );
}

export function poolRevisions(
  pool: MachineConfigPool,
  machineConfigs: readonly MachineConfig[],
  nodes: readonly Node[],
): PoolRevision[] {
  const rendered = machineConfigs
    .filter((mc) => ownedBy(mc, pool))
    .sort((a, b) => {
      const ca = a.metadata.creationTimestamp ?? '';
      const cb = b.metadata.creationTimestamp ?? '';
      if (ca !== cb) return ca < cb ? -1 : 1;
      return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
    });
  const target = pool.spec.configuration?.name;
  const rollback = activeRollback(pool);
  return rendered.map((mc, i) => {
    const name = mc.metadata.name ?? '';
    const before = readSourceStamps(rendered[i - 1]);
    const after = readSourceStamps(mc);
    const notes: string[] = [];
    if (name === target) notes.push(rollback === undefined ? 'target' : 'rendered target');
    if (name === rollback?.to) notes.push('target (rolled back)');
    if (name === pool.status?.configuration?.name) notes.push('pool status');
    return {
      revision: i + 1,
      name,
      created: mc.metadata.creationTimestamp ?? '',
      nodes: nodes.filter((n) => n.metadata.annotations?.[Annotation.currentConfig] === name)
        .length,
      notes,
      changeCause:
        before === undefined || after === undefined
          ? ''
          : changeCause(configChanges(before, after)),
    };
  });
}

/** Which revision `undo` goes to: `--to-revision N`, or the one before the current target. */
export function undoRevision(
  pool: MachineConfigPool,
  revisions: readonly PoolRevision[],
  toRevision: number | undefined,
): Result<PoolRevision, string> {
  const current = activeRollback(pool)?.to ?? pool.spec.configuration?.name ?? '';
  if (toRevision !== undefined) {
    const r = revisions.find((x) => x.revision === toRevision);
    if (r === undefined)
      return err(
        `unable to find the specified revision ${toRevision} (revisions: 1 to ${revisions.length})`,
      );
    if (r.name === current) return err(`revision ${toRevision} (${r.name}) is already the target`);
    return ok(r);
  }
  const at = revisions.findIndex((x) => x.name === current);
  const previous = at > 0 ? revisions[at - 1] : undefined;
  if (previous === undefined)
    return err(`no revision before the current target ${current || '(none)'} to go back to`);
  return ok(previous);
}

/** A revision number as a user types it (`--to-revision N`, the dashboard's field), or undefined. */
export function parseRevisionNumber(text: string): number | undefined {
  return /^[1-9]\d{0,8}$/.test(text) ? Number(text) : undefined;
}
