/**
 * The options of `mco start` and their checks, all made before anything is written: whole
 * numbers within bounds, durations the controller accepts, and a port base that leaves room for
 * every port below 65536.
 */
import { CliError } from '../shell/cli-io.js';
import { parseGoDuration } from '../shell/go-duration.js';
import { portRangeProblem } from './cluster-ports.js';

export interface StartOptions {
  readonly dataDir: string;
  readonly masters: number;
  readonly workers: number;
  readonly portBase: number;
  /** Which of masters/workers/portBase were given on the command line. */
  readonly explicit: ReadonlySet<'masters' | 'workers' | 'portBase'>;
  /** The controller's `--drain-timeout` (upstream's 1h when absent). */
  readonly drainTimeout?: string;
  /** The controller's `--mcs-cert-validity` and `--mcs-cert-refresh` (upstream's 10 and 8 years). */
  readonly mcsCertValidity?: string;
  readonly mcsCertRefresh?: string;
  /** The controller takes its Lease as on a real cluster (short timings: one machine). */
  readonly leaderElect?: boolean;
}

/**
 * Upper bounds that catch a typo (`--workers 200`) before the box tries to boot that many nodes
 * on one machine; each node is a sysroot and a few processes.
 */
export const MaxMasters = 9;
export const MaxWorkers = 99;

/** A commander parser for a whole number from `min` to `max`, in decimal digits only. */
export function wholeNumber(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new CliError(`${flag} ${value}: expected a whole number from ${min} to ${max}`);
    return n;
  };
}

/**
 * Refuses options that would fail later (a controller restarting in a loop, a server that cannot
 * listen); the counts and port base of a resumed cluster are checked again once its record is read.
 */
export function checkStartOptions(options: StartOptions): void {
  if (options.drainTimeout !== undefined) parseGoDuration('--drain-timeout', options.drainTimeout);
  if (options.mcsCertValidity !== undefined)
    parseGoDuration('--mcs-cert-validity', options.mcsCertValidity);
  if (options.mcsCertRefresh !== undefined)
    parseGoDuration('--mcs-cert-refresh', options.mcsCertRefresh);
  const problem = portRangeProblem(options.portBase, options.masters + options.workers);
  if (problem !== undefined) throw new CliError(problem);
}
