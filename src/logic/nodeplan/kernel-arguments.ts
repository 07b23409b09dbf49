/**
 * Kernel arguments of a MachineConfig (docs/reference/daemon.md §7.8 step 6,
 * docs/reference/vectors.md §D1). An entry may hold
 * several arguments; they are split the way the kernel's next_arg() splits the command line
 * (whitespace separates, double quotes group, no escapes). On a change the old list is deleted
 * in full and the new one appended, which keeps the bookkeeping trivially correct.
 */
import { listsDiffer } from './lists-differ.js';

/** Same shape as the Host port's KernelArgumentChange (logic may not import ports). */
export interface KernelArgumentChange {
  readonly delete: readonly string[];
  readonly append: readonly string[];
}

/** C/POSIX isspace. */
function isSpace(c: string): boolean {
  return c === ' ' || c === '\f' || c === '\n' || c === '\r' || c === '\t' || c === '\v';
}

/** next_arg(): the arguments of one command-line string. */
export function splitKernelArguments(args: string): readonly string[] {
  const out: string[] = [];
  let stop = 0;
  while (stop < args.length) {
    let start = stop;
    while (start < args.length && isSpace(args.charAt(start))) start++;
    stop = start;
    let inQuote = false;
    for (; stop < args.length; stop++) {
      const c = args.charAt(stop);
      if (isSpace(c) && !inQuote) break;
      if (c === '"') inQuote = !inQuote;
    }
    if (start !== stop) out.push(args.slice(start, stop));
  }
  return out;
}

/** parseKernelArguments: every entry split, in order. */
function parseKernelArguments(entries: readonly string[]): readonly string[] {
  return entries.flatMap((e) => splitKernelArguments(e).map((a) => a.trim()));
}

/**
 * generateKargs as a change: nothing when the diff's kargs flag is false (both empty or equal),
 * otherwise delete every old argument and append every new one.
 */
export function kernelArgumentChange(
  oldEntries: readonly string[],
  newEntries: readonly string[],
): KernelArgumentChange {
  if (!listsDiffer(oldEntries, newEntries)) return { delete: [], append: [] };
  return { delete: parseKernelArguments(oldEntries), append: parseKernelArguments(newEntries) };
}

export function isEmptyKernelArgumentChange(change: KernelArgumentChange): boolean {
  return change.delete.length === 0 && change.append.length === 0;
}

/** The `rpm-ostree kargs` arguments for a change (empty → run nothing). */
export function rpmOstreeKargsArgs(change: KernelArgumentChange): readonly string[] {
  return [
    ...change.delete.map((a) => `--delete-if-present=${a}`),
    ...change.append.map((a) => `--append=${a}`),
  ];
}

/** The expected arguments (split) that the running command line lacks, in expected order. */
export function missingKernelArguments(
  expectedEntries: readonly string[],
  running: readonly string[],
): readonly string[] {
  const have = new Set(running);
  return parseKernelArguments(expectedEntries).filter((a) => !have.has(a));
}

/**
 * setRunningKargsWithCmdline (firstboot): the requested entries that appear as arguments of the
 * running command line, in command-line order (an entry holding several arguments never matches).
 */
export function runningKernelArguments(
  requested: readonly string[],
  cmdline: string,
): readonly string[] {
  return splitKernelArguments(cmdline.trim()).flatMap((arg) =>
    requested.includes(arg) ? [arg] : [],
  );
}
