/**
 * `DIR/cluster.json`: what a box was started with (masters, workers, port base, boot image), so a
 * later start resumes the same cluster. Read with its fields checked (a hand-edited or truncated
 * file is refused, not half used), and merged with the options of the start that resumes it: a
 * cluster may grow and move its ports, not shrink.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CliError } from '../shell/cli-io.js';
import type { ClusterLayout } from './cluster-layout.js';
import { portRangeProblem } from './cluster-ports.js';
import type { StartOptions } from './start-options.js';

/** What `DIR/cluster.json` records, so a later start resumes the same cluster. */
export interface ClusterRecord {
  readonly masters: number;
  readonly workers: number;
  readonly portBase: number;
  /** The OS image nodes boot (and the ControllerConfig's base OS image at first). */
  readonly bootImage: string;
}

/** The record's sizes and ports, before the boot image is known. */
export type ClusterShape = Omit<ClusterRecord, 'bootImage'>;

/** The saved record, or undefined for a folder that holds no cluster yet. */
export function readClusterRecord(layout: ClusterLayout): ClusterRecord | undefined {
  if (!existsSync(layout.clusterFile)) return undefined;
  const refuse = (why: string): never => {
    throw new CliError(
      `${layout.clusterFile} is not a cluster record (${why}): restore it, or remove the data folder to start over`,
    );
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(layout.clusterFile, 'utf8'));
  } catch (e) {
    return refuse(e instanceof SyntaxError ? 'not JSON' : (e as Error).message);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return refuse('not an object');
  const r = parsed as Record<string, unknown>;
  const whole = (key: string, min: number): number => {
    const v = r[key];
    return typeof v === 'number' && Number.isSafeInteger(v) && v >= min
      ? v
      : refuse(`${key} is not a whole number ≥ ${min}`);
  };
  const record = {
    masters: whole('masters', 1),
    workers: whole('workers', 0),
    portBase: whole('portBase', 1),
    bootImage:
      typeof r['bootImage'] === 'string' && r['bootImage'] !== ''
        ? r['bootImage']
        : refuse('bootImage is not a pull spec'),
  };
  return record;
}

/**
 * The cluster this start runs: the options for a new one; for a saved one its record, with the
 * counts and port base given on the command line instead.
 */
export function resolveClusterShape(
  options: StartOptions,
  saved: ClusterRecord | undefined,
): ClusterShape {
  const pick = (key: 'masters' | 'workers' | 'portBase') =>
    saved === undefined || options.explicit.has(key) ? options[key] : saved[key];
  const shape = { masters: pick('masters'), workers: pick('workers'), portBase: pick('portBase') };
  if (saved !== undefined && (shape.masters < saved.masters || shape.workers < saved.workers))
    throw new CliError(
      `this cluster has ${saved.masters} masters and ${saved.workers} workers: it can grow, not shrink (remove the data folder to start over)`,
    );
  const problem = portRangeProblem(shape.portBase, shape.masters + shape.workers);
  if (problem !== undefined) throw new CliError(problem);
  return shape;
}
