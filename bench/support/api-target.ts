/**
 * The benches' HTTPS client for a Kubernetes API server, ours or kube-apiserver: the same client
 * code against both, so a ratio between them measures the servers. A target is read from a
 * kubeconfig (bearer token or client certificate, CA inline or in a file). Requests are plain
 * `node:https` with a keep-alive agent; a watch is one TLS connection of its own.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

export interface ApiTarget {
  readonly url: string;
  readonly ca: string;
  readonly token?: string;
  readonly cert?: string;
  readonly key?: string;
}

interface Kubeconfig {
  readonly 'current-context'?: string;
  readonly contexts?: readonly {
    readonly name: string;
    readonly context: { cluster: string; user: string };
  }[];
  readonly clusters?: readonly {
    readonly name: string;
    readonly cluster: Readonly<Record<string, string>>;
  }[];
  readonly users?: readonly {
    readonly name: string;
    readonly user: Readonly<Record<string, string>>;
  }[];
}

/** Inline `<field>-data` (base64) or the file `<field>` names, relative to the kubeconfig. */
function material(
  entry: Readonly<Record<string, string>>,
  field: string,
  base: string,
): string | undefined {
  const data = entry[`${field}-data`];
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const file = entry[field];
  if (file === undefined) return undefined;
  return readFileSync(isAbsolute(file) ? file : join(base, file), 'utf8');
}

/** The token or client certificate of a kubeconfig user, as ApiTarget fields. */
function credentials(
  user: Readonly<Record<string, string>>,
  base: string,
): Pick<ApiTarget, 'token' | 'cert' | 'key'> {
  const token = user['token'];
  const cert = material(user, 'client-certificate', base);
  const key = material(user, 'client-key', base);
  return {
    ...(token === undefined ? {} : { token }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
  };
}

/** The target of a kubeconfig's current context. */
export function targetFromKubeconfig(path: string): ApiTarget {
  const config = parse(readFileSync(path, 'utf8')) as Kubeconfig;
  const contextName = config['current-context'] ?? config.contexts?.[0]?.name;
  const context = config.contexts?.find((c) => c.name === contextName)?.context;
  const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = config.users?.find((u) => u.name === context?.user)?.user ?? {};
  const url = cluster?.['server'];
  if (cluster === undefined || url === undefined) throw new Error(`${path}: no cluster server`);
  const base = dirname(path);
  const ca = material(cluster, 'certificate-authority', base);
  if (ca === undefined) throw new Error(`${path}: no certificate authority`);
  return { url, ca, ...credentials(user, base) };
}

/** A keep-alive agent with the target's CA and client certificate. */
export function apiAgent(target: ApiTarget, maxSockets: number): Agent {
  return new Agent({
    keepAlive: true,
    maxSockets,
    ca: target.ca,
    ...(target.cert === undefined ? {} : { cert: target.cert }),
    ...(target.key === undefined ? {} : { key: target.key }),
  });
}

export interface ApiAnswer {
  readonly status: number;
  readonly text: string;
}

/** One request; `agent: false` opens a connection for it alone. */
export function apiCall(
  target: ApiTarget,
  agent: Agent | false,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<ApiAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (target.token !== undefined) headers['authorization'] = `Bearer ${target.token}`;
    if (body !== undefined) headers['content-type'] = contentType;
    const req = request(
      `${target.url}${path}`,
      {
        method,
        agent,
        ca: target.ca,
        ...(target.cert === undefined ? {} : { cert: target.cert }),
        ...(target.key === undefined ? {} : { key: target.key }),
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** apiCall that throws unless the answer has `status`. */
export async function apiExpect(
  status: number,
  ...args: Parameters<typeof apiCall>
): Promise<ApiAnswer> {
  const answer = await apiCall(...args);
  if (answer.status !== status)
    throw new Error(`${args[2]} ${args[3]}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer;
}

export interface OpenWatch {
  close(): void;
}

/** A watch (`path` with `watch=true`), each complete event line to `onLine`. */
export function openWatch(
  target: ApiTarget,
  path: string,
  onLine: (line: string) => void,
): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${target.url}${path}`,
      {
        agent: false,
        ca: target.ca,
        ...(target.cert === undefined ? {} : { cert: target.cert }),
        ...(target.key === undefined ? {} : { key: target.key }),
        headers: target.token === undefined ? {} : { authorization: `Bearer ${target.token}` },
      },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            onLine(buffer.slice(0, newline));
            buffer = buffer.slice(newline + 1);
          }
        });
        res.on('error', () => undefined);
        resolve({ close: () => req.destroy() });
      },
    );
    req.on('error', (e) => {
      reject(e);
    });
    req.end();
  });
}

/** Runs `task(0 … count-1)` with `concurrency` in flight. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * The sum of a Prometheus counter's series in a `/metrics` text, or undefined if it has none.
 * Series with an empty `resource` label (kube-apiserver counts /metrics, /healthz … there) are
 * left out: the benches count requests for resources.
 */
export function counterTotal(metricsText: string, name: string): number | undefined {
  let total: number | undefined;
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!rest.startsWith('{') && !rest.startsWith(' ')) continue;
    if (/[{,]resource=""/.test(rest)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}

/** `apiserver_request_total` summed over its series; undefined while the server has no /metrics. */
export async function requestTotal(target: ApiTarget): Promise<number | undefined> {
  const answer = await apiCall(target, false, 'GET', '/metrics');
  if (answer.status !== 200) return undefined;
  return counterTotal(answer.text, 'apiserver_request_total');
}
