/**
 * Runs the built `mco apiserver` as a real process for end-to-end tests (free port, temp data dir,
 * stopped by PID), and the real kubectl binaries and raw HTTPS requests against it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RepoRoot = fileURLToPath(new URL('../..', import.meta.url));
const McoBin = join(RepoRoot, 'bin/mco.js');

/** Where the versioned kubectl binaries (kubectl.1.27 … kubectl.1.33) sit next to the dispatcher. */
const KubectlDir = dirname(
  realpathSync(execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim()),
);

export type Identity =
  'admin' | 'controller' | 'mcs' | 'operator' | 'daemon' | 'dashboard' | 'bootstrap';

export interface StartOptions {
  readonly dataDir?: string;
  /** 0 (default): any free port. */
  readonly port?: number;
  /** Listen address (default 127.0.0.1). */
  readonly host?: string;
  readonly storage?: 'sqlite' | 'memory' | 'etcd';
  readonly extraArgs?: readonly string[];
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export class ApiServerProcess {
  readonly dataDir: string;
  readonly ownsDir: boolean;
  #child: ChildProcess | undefined;
  /** Every process this object started, so none outlives the test even after a restart race. */
  readonly #spawned: ChildProcess[] = [];
  #stderr = '';
  port = 0;

  constructor(dataDir: string | undefined) {
    this.ownsDir = dataDir === undefined;
    this.dataDir = dataDir ?? mkdtempSync(join(tmpdir(), 'mco-apiserver-e2e-'));
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error('not running');
    return pid;
  }

  get stderr(): string {
    return this.#stderr;
  }

  kubeconfig(identity: Identity = 'admin'): string {
    return join(this.dataDir, `${identity}.kubeconfig`);
  }

  token(identity: Identity = 'admin'): string {
    const text = readFileSync(this.kubeconfig(identity), 'utf8');
    const m = /token: (\S+)/.exec(text);
    if (m?.[1] === undefined) throw new Error(`no token in ${identity}.kubeconfig`);
    return m[1];
  }

  get caPem(): string {
    return readFileSync(join(this.dataDir, 'ca.crt'), 'utf8');
  }

  /** Starts the process and resolves once it has written its PID file (it is listening then). */
  async start(options: Omit<StartOptions, 'dataDir'> = {}): Promise<void> {
    const pidFile = join(this.dataDir, 'apiserver.pid');
    if (existsSync(pidFile)) unlinkSync(pidFile);
    const args = [
      McoBin,
      'apiserver',
      '--data-dir',
      this.dataDir,
      '--listen',
      `${options.host ?? '127.0.0.1'}:${options.port ?? this.port}`,
      '--storage',
      options.storage ?? 'sqlite',
      ...(options.extraArgs ?? []),
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child = child;
    this.#spawned.push(child);
    this.#stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    await waitFor(`the API server to start (stderr: ${this.#stderr})`, 30_000, () => {
      if (child.exitCode !== null)
        throw new Error(`mco apiserver exited ${child.exitCode}: ${this.#stderr}`);
      return existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(child.pid)
        ? true
        : undefined;
    });
    const m = /server: https:\/\/[^:]+:(\d+)/.exec(readFileSync(this.kubeconfig(), 'utf8'));
    this.port = Number(m?.[1]);
  }

  /** Sends `signal` to the process (by PID) and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null)
      return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => {
        resolve(code);
      });
    });
    process.kill(this.pid, signal);
    const code = await exited;
    // A restart may already have replaced the child; forget only this one.
    if (this.#child === child) this.#child = undefined;
    return code;
  }

  /** Stops the process (SIGTERM, SIGKILL if it lingers) and removes a data dir it created. */
  async dispose(): Promise<void> {
    const child = this.#child;
    if (child !== undefined) {
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, 10_000);
      await this.stop('SIGTERM');
      clearTimeout(timer);
    }
    for (const spawned of this.#spawned) {
      if (spawned.exitCode === null && spawned.signalCode === null) spawned.kill('SIGKILL');
    }
    if (this.ownsDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export async function startApiServer(options: StartOptions = {}): Promise<ApiServerProcess> {
  const server = new ApiServerProcess(options.dataDir);
  await server.start(options);
  return server;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The body parsed as JSON, typed as the caller expects (tests assert the shape anyway). */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  json<T = Record<string, unknown>>(): T;
}

export interface RequestOptions {
  readonly token?: string;
  /** A client certificate and key (PEM) to present. */
  readonly clientCertificate?: { readonly cert: string; readonly key: string };
  readonly body?: string;
  readonly contentType?: string;
  readonly accept?: string;
}

/** One HTTPS request, trusting only the server's CA. */
export function api(
  server: ApiServerProcess,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method,
        headers,
        ca: server.caPem,
        agent: false,
        ...(options.clientCertificate === undefined ? {} : options.clientCertificate),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
            json: <T>() => JSON.parse(body) as T,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KubectlOptions {
  readonly kubeconfig: string;
  readonly cacheDir: string;
  /** `1.32` (default), `1.27`, `1.33`, ... */
  readonly version?: string;
  readonly input?: string;
  readonly env?: Record<string, string>;
  readonly timeoutMs?: number;
}

function kubectlArgs(args: readonly string[], options: KubectlOptions): string[] {
  return ['--kubeconfig', options.kubeconfig, '--cache-dir', options.cacheDir, ...args];
}

/** Runs kubectl to completion (asynchronously, so the test can act meanwhile). */
export function kubectl(args: readonly string[], options: KubectlOptions): Promise<KubectlResult> {
  return kubectlProcess(args, options).done;
}

export interface KubectlProcess {
  readonly done: Promise<KubectlResult>;
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string };
  kill(): void;
}

export function kubectlProcess(args: readonly string[], options: KubectlOptions): KubectlProcess {
  const binary = join(KubectlDir, `kubectl.${options.version ?? '1.32'}`);
  const child = spawn(binary, kubectlArgs(args, options), {
    env: { ...process.env, ...options.env, KUBECONFIG: options.kubeconfig },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 45_000);
  const done = new Promise<KubectlResult>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return {
    done,
    output: () => ({ stdout, stderr }),
    kill: () => child.kill('SIGTERM'),
  };
}

/** Polls `check` until it returns true. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
