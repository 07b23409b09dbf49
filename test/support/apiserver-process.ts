/**
 * A real `mco apiserver` process for integration tests of components that talk to it through the
 * ResourceClient: free 127.0.0.1 port, temp data dir, ready once `/readyz` answers, stopped by PID
 * (SIGTERM, then SIGKILL if it does not exit in time), restartable on the same port and data dir
 * so kubeconfigs stay valid and state survives.
 *
 * Process handling is the e2e harness's (test/e2e/apiserver-harness.ts); this adds readiness,
 * the SIGKILL fallback and restart.
 */
import { ApiServerProcess, api, type Identity } from '../e2e/apiserver-harness.js';

export interface ApiServerHandle {
  /** The admin kubeconfig the server wrote. */
  readonly kubeconfigPath: string;
  /** The kubeconfig the server wrote for one of its identities. */
  kubeconfig(identity: Identity): string;
  readonly url: string;
  readonly dataDir: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the process exited. */
  stop(timeoutMs?: number): Promise<void>;
  /** SIGKILL: a crash, no graceful shutdown. */
  kill(): Promise<void>;
  /** Stops (if running) and starts again on the same port and data dir; waits until ready. */
  restart(): Promise<void>;
  /** Stops and removes the data dir. */
  dispose(): Promise<void>;
}

export interface StartApiServerOptions {
  readonly storage?: 'sqlite' | 'memory';
  readonly extraArgs?: readonly string[];
  /** How long to wait for readiness (default 30 s). */
  readonly readyTimeoutMs?: number;
}

async function waitReady(server: ApiServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const answer = await api(server, 'GET', '/readyz', { token: server.token() });
      if (answer.status === 200) return;
      last = `HTTP ${answer.status}: ${answer.body}`;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    if (Date.now() > deadline) throw new Error(`API server not ready: ${last}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopWithFallback(server: ApiServerProcess, timeoutMs: number): Promise<void> {
  let pid: number;
  try {
    pid = server.pid;
  } catch {
    return; // not running
  }
  const timer = setTimeout(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, timeoutMs);
  try {
    await server.stop('SIGTERM');
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the built `mco apiserver` (npm run build first) and waits until it is ready. */
export async function startApiServerProcess(
  options: StartApiServerOptions = {},
): Promise<ApiServerHandle> {
  const server = new ApiServerProcess(undefined);
  const start = {
    storage: options.storage ?? 'sqlite',
    ...(options.extraArgs === undefined ? {} : { extraArgs: options.extraArgs }),
  } as const;
  const readyTimeout = options.readyTimeoutMs ?? 30_000;
  await server.start(start);
  await waitReady(server, readyTimeout);
  return {
    kubeconfigPath: server.kubeconfig('admin'),
    kubeconfig: (identity) => server.kubeconfig(identity),
    get url() {
      return server.url;
    },
    dataDir: server.dataDir,
    get pid() {
      return server.pid;
    },
    stop: (timeoutMs = 10_000) => stopWithFallback(server, timeoutMs),
    kill: async () => {
      await server.stop('SIGKILL');
    },
    restart: async () => {
      await stopWithFallback(server, 10_000);
      await server.start(start);
      await waitReady(server, readyTimeout);
    },
    dispose: () => server.dispose(),
  };
}
