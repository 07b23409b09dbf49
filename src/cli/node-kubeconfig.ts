/**
 * `mco apiserver node-kubeconfig`: mints a node identity on the running server and prints a
 * kubeconfig for it. The identity is a node-token Secret created through the API with the admin
 * credential, so the server needs no restart: its authenticator finds the Secret on the node's
 * first request.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import {
  formatNodeToken,
  generateNodeToken,
  nodeTokenSecret,
  NodeTokenNamespace,
} from '../apiserver/auth/node-token.js';
import { nodeIdentity } from '../apiserver/auth/identities.js';
import { CliError } from './cli-io.js';
import { formatKubeconfig, readKubeconfig, type KubeconfigCredentials } from './kubeconfig.js';
import { kubeconfigFileName } from './apiserver-credentials.js';

export interface NodeKubeconfigOptions {
  readonly dataDir: string;
  readonly node: string;
  /** The server URL to reach and to write into the kubeconfig (default: the admin kubeconfig's). */
  readonly server?: string;
}

interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

function post(url: URL, credentials: KubeconfigCredentials, body: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca: credentials.caPem,
        headers: {
          authorization: `Bearer ${credentials.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

function statusMessage(answer: HttpAnswer): string {
  try {
    const status = JSON.parse(answer.body) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not a Status body: report the HTTP code alone
  }
  return `HTTP ${answer.status}`;
}

/** Mints the identity and returns the node's kubeconfig text. */
export async function mintNodeKubeconfig(options: NodeKubeconfigOptions): Promise<string> {
  const adminPath = join(options.dataDir, kubeconfigFileName('admin'));
  let text: string;
  try {
    text = readFileSync(adminPath, 'utf8');
  } catch (e) {
    throw new CliError(
      `cannot read ${adminPath}: has \`mco apiserver --data-dir ${options.dataDir}\` run?`,
      { cause: e },
    );
  }
  const admin = readKubeconfig(text);
  if (admin === undefined)
    throw new CliError(`${adminPath}: no server, certificate-authority-data or token`);
  const server = options.server ?? admin.server;
  const token = generateNodeToken();
  const secret = nodeTokenSecret(options.node, token);
  const url = new URL(`/api/v1/namespaces/${NodeTokenNamespace}/secrets`, server);
  let answer: HttpAnswer;
  try {
    answer = await post(url, admin, JSON.stringify(secret));
  } catch (e) {
    throw new CliError(
      `cannot reach the API server at ${server}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
  if (answer.status !== 201)
    throw new CliError(`creating the node identity failed: ${statusMessage(answer)}`);
  return formatKubeconfig({
    server,
    caPem: admin.caPem,
    userName: nodeIdentity(options.node).name,
    token: formatNodeToken(token),
  });
}
