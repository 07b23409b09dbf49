/**
 * The events panel's query: events newest first, filtered by type (Normal, Warning), by pool (the
 * pool itself and its nodes' Node and MachineConfigNode objects) and by node, one page at a time
 * (the watch keeps every event the API server still has, which on a busy cluster is thousands).
 * The query comes from the page's URL: bad values are refused, never guessed at.
 */
import type { Event } from '../api/core/v1/event.js';
import { err, ok, type Result } from '../lib/result.js';
import { eventView, type EventView, type NodeView } from './dashboard-snapshot.js';
import { isObjectName } from './pool-actions.js';

const EventPageSize = 25;
const MaxPage = 10_000;

export interface EventQuery {
  readonly type?: 'Normal' | 'Warning';
  readonly pool?: string;
  readonly node?: string;
  /** 1-based. */
  readonly page: number;
}

export interface EventPage {
  readonly events: readonly EventView[];
  readonly page: number;
  readonly pages: number;
  readonly total: number;
}

/** The query from URL parameters ('' or absent: no filter). */
export function parseEventQuery(
  params: Record<string, string | undefined>,
): Result<EventQuery, string> {
  const type = params['type'] ?? '';
  if (type !== '' && type !== 'Normal' && type !== 'Warning') return err('type: Normal or Warning');
  const pool = params['pool'] ?? '';
  if (pool !== '' && !isObjectName(pool)) return err('pool: not a pool name');
  const node = params['node'] ?? '';
  if (node !== '' && !isObjectName(node)) return err('node: not a node name');
  const pageText = params['page'] ?? '1';
  if (!/^\d{1,5}$/.test(pageText)) return err('page: a number from 1');
  const page = Number.parseInt(pageText, 10);
  if (page < 1 || page > MaxPage) return err(`page: a number from 1 to ${MaxPage}`);
  return ok({
    ...(type === '' ? {} : { type }),
    ...(pool === '' ? {} : { pool }),
    ...(node === '' ? {} : { node }),
    page,
  });
}

const NodeKinds = new Set(['Node', 'MachineConfigNode']);

function matches(e: Event, q: EventQuery, poolNodes: ReadonlySet<string> | undefined): boolean {
  if (q.type !== undefined && e.type !== q.type) return false;
  const kind = e.involvedObject.kind ?? '';
  const name = e.involvedObject.name ?? '';
  if (q.node !== undefined && !(NodeKinds.has(kind) && name === q.node)) return false;
  if (poolNodes !== undefined && q.pool !== undefined) {
    const ofPool =
      (kind === 'MachineConfigPool' && name === q.pool) ||
      (NodeKinds.has(kind) && poolNodes.has(name));
    if (!ofPool) return false;
  }
  return true;
}

export function queryEvents(
  events: readonly Event[],
  nodes: readonly NodeView[],
  q: EventQuery,
  pageSize = EventPageSize,
): EventPage {
  const poolNodes =
    q.pool === undefined
      ? undefined
      : new Set(nodes.filter((n) => n.pool === q.pool).map((n) => n.name));
  const selected = events
    .filter((e) => matches(e, q, poolNodes))
    .map(eventView)
    .sort((a, b) => b.time.localeCompare(a.time) || a.object.localeCompare(b.object));
  const pages = Math.max(1, Math.ceil(selected.length / pageSize));
  const page = Math.min(q.page, pages);
  return {
    events: selected.slice((page - 1) * pageSize, page * pageSize),
    page,
    pages,
    total: selected.length,
  };
}
