/**
 * What an administrator does to a pool's rollout beyond upstream's pause: read its revisions
 * (`mco rollout history`), release its canary or lift the stop of a revert (`mco rollout resume`),
 * approve a config its policy holds for an approval (`mco rollout approve`),
 * and send it back to an earlier rendered config (`mco rollout undo`). The CLI and the dashboard
 * both call these, each with the caller's own client (the dashboard's carries the user's token),
 * so the API server authorizes every read and write as the user's, and both say the same things.
 *
 * Every write carries the pool's resourceVersion: a target that moved between the read and the
 * write makes the server refuse it (Conflict), rather than release or pin the wrong render.
 */
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { nodesForPool } from '../logic/rollout/pool-membership.js';
import { rolloutTarget } from '../logic/rollout-policy/pool-rollback.js';
import { parseRolloutPolicy } from '../logic/rollout-policy/parse-rollout-policy.js';
import {
  poolRevisions,
  undoRevision,
  type PoolRevision,
} from '../logic/rollout-policy/pool-revisions.js';
import type { ResourceClient } from '../ports/resource-client.js';

/** Why an action changed nothing: the pool's state or the request, not the server, refused it. */
export type RolloutRefusalKind = 'NotFound' | 'Invalid' | 'Conflict';

export class RolloutActionRefused extends Error {
  override readonly name = 'RolloutActionRefused';
  readonly kind: RolloutRefusalKind;

  constructor(kind: RolloutRefusalKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface PoolHistory {
  readonly pool: MachineConfigPool;
  readonly revisions: PoolRevision[];
}

const poolNotFound = (name: string) =>
  new RolloutActionRefused(
    'NotFound',
    `machineconfigpools.machineconfiguration.openshift.io "${name}" not found`,
  );

async function getPool(
  client: ResourceClient,
  name: string,
  signal: AbortSignal | undefined,
): Promise<MachineConfigPool> {
  try {
    return await client.get<MachineConfigPool>(
      Resources.machineConfigPool,
      name,
      undefined,
      signal,
    );
  } catch (e) {
    if (isStatusError(e, 'NotFound')) throw poolNotFound(name);
    throw e;
  }
}

/** Reads the pool, its rendered configs and its nodes: its revisions as history lists them. */
export async function readPoolHistory(
  client: ResourceClient,
  name: string,
  signal?: AbortSignal,
): Promise<PoolHistory> {
  const pool = await getPool(client, name, signal);
  const options = signal === undefined ? {} : { signal };
  const [mcs, pools, nodes] = await Promise.all([
    client.list<MachineConfig>(Resources.machineConfig, options),
    client.list<MachineConfigPool>(Resources.machineConfigPool, options),
    client.list<Node>(Resources.node, options),
  ]);
  const members = nodesForPool(pool, pools.items, nodes.items);
  return { pool, revisions: poolRevisions(pool, mcs.items, members) };
}

export interface ResumeResult {
  readonly pool: string;
  /** The rendered config the release holds for (a rollback's while one applies). */
  readonly target: string;
  /** False when the pool was already resumed for it and nothing was written. */
  readonly changed: boolean;
}

/** The config the pool rolls out now, refused when there is none or the pool has no policy. */
function policyTarget(pool: MachineConfigPool, name: string, verb: string): string {
  const target = rolloutTarget(pool);
  if (target === '')
    throw new RolloutActionRefused('Invalid', `mcp/${name} has no rendered config to ${verb} yet`);
  if (pool.metadata.annotations?.[RolloutAnnotation.policy] === undefined)
    throw new RolloutActionRefused(
      'Invalid',
      `mcp/${name} has no rollout policy (annotation ${RolloutAnnotation.policy}): nothing to ${verb}`,
    );
  return target;
}

/**
 * Writes the config the pool rolls out into its resume annotation (the canary is released for
 * that config only: the next one is a new rollout with a new canary) and lifts the stop the node
 * controller wrote when it reverted a node. While a rollback applies that config is the
 * rollback's, not the rendered target: the node controller holds the rollback's canary.
 */
export async function resumePoolRollout(
  client: ResourceClient,
  name: string,
  signal?: AbortSignal,
): Promise<ResumeResult> {
  const pool = await getPool(client, name, signal);
  const target = policyTarget(pool, name, 'resume');
  const annotations = pool.metadata.annotations ?? {};
  const stopped = annotations[RolloutAnnotation.stopped] !== undefined;
  if (annotations[RolloutAnnotation.resume] === target && !stopped)
    return { pool: name, target, changed: false };
  await patchPoolAnnotations(client, {
    name,
    pool,
    annotations: {
      [RolloutAnnotation.resume]: target,
      ...(stopped ? { [RolloutAnnotation.stopped]: null } : {}),
    },
    onConflict: `mcp/${name} changed while resuming (its target may have moved): try again`,
    signal,
  });
  return { pool: name, target, changed: true };
}

/**
 * Approves the config the pool rolls out now (its approved annotation): the approval hold of that
 * config lifts, and a later render, being another config, needs its own. The pool's
 * resourceVersion is held, so a config rendered after the caller read the hold is not approved
 * unseen.
 */
export async function approvePoolRollout(
  client: ResourceClient,
  name: string,
  signal?: AbortSignal,
): Promise<ResumeResult> {
  const pool = await getPool(client, name, signal);
  const target = policyTarget(pool, name, 'approve');
  const parsed = parseRolloutPolicy(pool.metadata.annotations?.[RolloutAnnotation.policy] ?? '');
  if (parsed.ok && parsed.value.source.approval === undefined)
    throw new RolloutActionRefused(
      'Invalid',
      `mcp/${name}'s rollout policy asks for no approval: nothing to approve`,
    );
  if (pool.metadata.annotations?.[RolloutAnnotation.approved] === target)
    return { pool: name, target, changed: false };
  await patchPoolAnnotations(client, {
    name,
    pool,
    annotations: { [RolloutAnnotation.approved]: target },
    onConflict: `mcp/${name} changed while approving (its target may have moved): read the hold again`,
    signal,
  });
  return { pool: name, target, changed: true };
}

export interface UndoResult {
  readonly pool: string;
  readonly revision: number;
  /** The rendered config the pool now rolls out. */
  readonly to: string;
  /** True when `to` is the rendered target itself: the rollback was removed. */
  readonly cleared: boolean;
}

/**
 * Sends the pool back to revision `toRevision` (the one before its current target by default)
 * by writing its rollback annotation; undoing to the rendered target itself removes the rollback.
 */
export async function undoPoolRollout(
  client: ResourceClient,
  name: string,
  toRevision: number | undefined,
  signal?: AbortSignal,
): Promise<UndoResult> {
  const { pool, revisions } = await readPoolHistory(client, name, signal);
  const target = pool.spec.configuration?.name ?? '';
  if (target === '')
    throw new RolloutActionRefused('Invalid', `mcp/${name} has no rendered config yet`);
  const chosen = undoRevision(pool, revisions, toRevision);
  if (!chosen.ok) throw new RolloutActionRefused('Invalid', chosen.error);
  const to = chosen.value.name;
  const cleared = to === target;
  await patchPoolAnnotations(client, {
    name,
    pool,
    annotations: {
      [RolloutAnnotation.rollback]: cleared ? null : JSON.stringify({ to, from: target }),
    },
    onConflict: `mcp/${name} changed while undoing (a new render?): look at the history again`,
    signal,
  });
  return { pool: name, revision: chosen.value.revision, to, cleared };
}

/** An annotation write on a pool as it was read, and what a Conflict is refused with. */
interface PoolAnnotationWrite {
  readonly name: string;
  readonly pool: MachineConfigPool;
  readonly annotations: Readonly<Record<string, string | null>>;
  readonly onConflict: string;
  readonly signal: AbortSignal | undefined;
}

/**
 * Writes the annotations with the pool's resourceVersion held, so a pool changed since it was
 * read is a Conflict, refused with `onConflict` rather than written over.
 */
async function patchPoolAnnotations(client: ResourceClient, w: PoolAnnotationWrite): Promise<void> {
  try {
    await client.patch(
      Resources.machineConfigPool,
      w.name,
      {
        metadata: { resourceVersion: w.pool.metadata.resourceVersion, annotations: w.annotations },
      },
      'merge',
      w.signal === undefined ? undefined : { signal: w.signal },
    );
  } catch (e) {
    if (isStatusError(e, 'Conflict')) throw new RolloutActionRefused('Conflict', w.onConflict);
    throw e;
  }
}
