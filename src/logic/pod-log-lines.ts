/**
 * Turning a container's log lines into a `pods/log` answer, as the kubelet does
 * (pkg/kubelet/kuberuntime/logs): lines before `since` are skipped, `timestamps` prefixes each with
 * its time in RFC 3339 with nanoseconds and a space, and `limitBytes` cuts the output there (the
 * last line may be cut). A line's time is the `time` of a JSON log line (what the components'
 * pino loggers write: milliseconds since the epoch, or an RFC 3339 string); a line of any other
 * form (a command's output passed through) has the time of the line before it.
 */

/** Go's time.RFC3339Nano in UTC: the fraction without trailing zeros, none when zero. */
function logTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.120Z
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction === '' ? '' : `.${fraction}`}Z`;
}

/** The time a JSON log line carries, if it is one. */
export function lineTimeMs(line: string): number | undefined {
  if (!line.startsWith('{')) return undefined;
  const m = /"time":\s*("([^"]*)"|\d+)/.exec(line);
  if (m === null) return undefined;
  const ms = m[2] !== undefined ? Date.parse(m[2]) : Number(m[1]);
  return Number.isFinite(ms) ? ms : undefined;
}

export interface LogLineOptions {
  readonly timestamps: boolean;
  readonly sinceMs?: number;
  readonly limitBytes?: number;
  /** The time of lines before the first that carries one (the container's start). */
  readonly startMs: number;
}

const encoder = new TextEncoder();

/** Formats successive batches of whole lines of one container instance. */
export class LogLineWriter {
  readonly #o: LogLineOptions;
  #lastMs: number;
  #sent = 0;

  constructor(options: LogLineOptions) {
    this.#o = options;
    this.#lastMs = options.startMs;
  }

  /** The time a line without one of its own takes (the last line's so far). */
  get lastMs(): number {
    return this.#lastMs;
  }

  set lastMs(ms: number) {
    this.#lastMs = ms;
  }

  /** Whether `limitBytes` has been reached: nothing more is to be sent. */
  get full(): boolean {
    return this.#o.limitBytes !== undefined && this.#sent >= this.#o.limitBytes;
  }

  /** The bytes for `lines` (each without its newline). */
  write(lines: readonly string[]): Uint8Array {
    let text = '';
    for (const line of lines) {
      const ms = lineTimeMs(line) ?? this.#lastMs;
      this.#lastMs = ms;
      if (this.#o.sinceMs !== undefined && ms < this.#o.sinceMs) continue;
      text += this.#o.timestamps ? `${logTimestamp(ms)} ${line}\n` : `${line}\n`;
    }
    let bytes = encoder.encode(text);
    const limit = this.#o.limitBytes;
    if (limit !== undefined && this.#sent + bytes.length > limit)
      bytes = bytes.subarray(0, Math.max(0, limit - this.#sent));
    this.#sent += bytes.length;
    return bytes;
  }
}

/**
 * Where the last `n` lines of `text` begin (its length for n = 0). A last line without a newline
 * counts as a line.
 */
export function tailStart(text: string, n: number): number {
  if (n === 0) return text.length;
  let end = text.endsWith('\n') ? text.length - 1 : text.length;
  for (let seen = 0; ; seen++) {
    const nl = text.lastIndexOf('\n', end - 1);
    if (nl < 0) return 0;
    if (seen + 1 === n) return nl + 1;
    end = nl;
  }
}
