/**
 * The kernel as the reference model of the root resolver: a python3 helper
 * (openat2-oracle.py) answers how openat2(2) with RESOLVE_IN_ROOT resolves a path under a root,
 * one JSON line per question. One helper process serves many questions; stop it by PID.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface KernelAnswer {
  /** Where the kernel resolved the path (the descriptor's /proc link). */
  readonly real?: string;
  /** The file's bytes, when asked to read. */
  readonly data?: Buffer;
  /** The errno name when openat2 failed (ENOENT, ENOTDIR, ELOOP…). */
  readonly errno?: string;
}

export class Openat2Oracle {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting: ((line: string) => void)[] = [];

  constructor() {
    this.#child = spawn('python3', [join(import.meta.dirname, 'openat2-oracle.py')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      this.#waiting.shift()?.(line);
    });
  }

  /** openat2(root, path, O_PATH[|O_NOFOLLOW] or O_RDONLY, RESOLVE_IN_ROOT). */
  ask(
    root: string,
    path: string,
    options: { follow: boolean; read?: boolean },
  ): Promise<KernelAnswer> {
    return new Promise((resolve, reject) => {
      this.#waiting.push((line) => {
        const raw = JSON.parse(line) as {
          real?: string;
          data?: string;
          errno?: string;
          error?: string;
        };
        if (raw.error !== undefined) {
          reject(new Error(`openat2 oracle: ${raw.error}`));
          return;
        }
        resolve({
          ...(raw.real === undefined ? {} : { real: raw.real }),
          ...(raw.data === undefined ? {} : { data: Buffer.from(raw.data, 'hex') }),
          ...(raw.errno === undefined ? {} : { errno: raw.errno }),
        });
      });
      this.#child.stdin.write(
        `${JSON.stringify({ root, path: path.replace(/^\/+/, '') || '.', follow: options.follow, read: options.read === true })}\n`,
      );
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#child.exitCode !== null) {
        resolve();
        return;
      }
      this.#child.once('exit', () => {
        resolve();
      });
      this.#child.stdin.end();
      if (this.#child.pid !== undefined) process.kill(this.#child.pid, 'SIGTERM');
    });
  }
}
