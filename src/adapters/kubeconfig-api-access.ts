/**
 * UserApiAccess from a kubeconfig selection (the dashboard's own): a user's token replaces the
 * selection's credentials and keeps its server and CA.
 *
 * `pods/log` goes over node:https with client-node's TLS and auth options (applyToHTTPSOptions):
 * client-node's own Log helper drops the Status body of a refusal, which the page shows.
 */
import { request, type RequestOptions } from 'node:https';
import { request as plainRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from './kube-client.js';
import { selectionDocument, type KubeconfigSelection } from '../lib/kubeconfig.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { PodLogAnswer, PodLogQuery, UserApiAccess } from '../ports/user-api-access.js';

/** The same server and CA, the user's token and nothing else of the dashboard's credentials. */
function userSelection(own: KubeconfigSelection, token: string): KubeconfigSelection {
  return { ...own, user: { token } };
}

function configOf(selection: KubeconfigSelection): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(selectionDocument(selection)));
  return kc;
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      done(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', () => {
      done(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

export class KubeconfigApiAccess implements UserApiAccess {
  readonly #own: KubeconfigSelection;
  readonly #ownClient: ResourceClient;

  constructor(own: KubeconfigSelection, ownClient?: ResourceClient) {
    this.#own = own;
    this.#ownClient = ownClient ?? createKubeClient({ selection: own });
  }

  #selection(token: string | undefined): KubeconfigSelection {
    return token === undefined ? this.#own : userSelection(this.#own, token);
  }

  client(token: string | undefined): ResourceClient {
    return token === undefined
      ? this.#ownClient
      : createKubeClient({ selection: this.#selection(token) });
  }

  async podLog(
    query: PodLogQuery,
    token: string | undefined,
    signal: AbortSignal,
  ): Promise<PodLogAnswer> {
    const selection = this.#selection(token);
    const server = new URL(selection.cluster.server ?? '');
    const url = new URL(
      `${server.pathname.replace(/\/$/, '')}/api/v1/namespaces/${encodeURIComponent(query.namespace)}/pods/${encodeURIComponent(query.pod)}/log`,
      server,
    );
    url.searchParams.set('container', query.container);
    url.searchParams.set('tailLines', String(query.tailLines));
    if (query.follow) url.searchParams.set('follow', 'true');
    const options: RequestOptions = {
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      headers: {},
      signal,
    };
    await configOf(selection).applyToHTTPSOptions(options);
    const send = url.protocol === 'https:' ? request : plainRequest;
    const res = await new Promise<IncomingMessage>((done, fail) => {
      const req = send(options, done);
      req.on('error', fail);
      req.end();
    });
    if (res.statusCode !== 200)
      return { ok: false, code: res.statusCode ?? 502, body: await readAll(res) };
    return { ok: true, body: Readable.toWeb(res) as ReadableStream<Uint8Array> };
  }
}
