/**
 * The lean client runs the ResourceClient contract, plus what only it does: in-cluster
 * credentials, a rotating token file, refusing kubeconfigs it cannot serve (the factory then
 * hands them to client-node), and sending a GET once more when a reused connection was closed.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTmpDir, type TmpDir } from '../../test/support/tmp-dir.js';
import { parseKubeconfig, selectKubeconfigContext } from '../lib/kubeconfig.js';
import { Resources } from '../api/resource-refs.js';
import {
  describeResourceClientContract,
  tokenKubeconfig,
} from '../../test/support/resource-client-contract.js';
import {
  HttpsResourceClient,
  UnsupportedKubeconfigError,
  credentialsFromKubeconfig,
  credentialsFromSelection,
  credentialsInCluster,
  selectionFiles,
} from './https-resource-client.js';
import { createResourceClient } from './resource-client-factory.js';

describeResourceClientContract('lean node:http(s)', (kubeconfigPath) =>
  HttpsResourceClient.fromKubeconfig(kubeconfigPath),
);

describe('HttpsResourceClient', () => {
  let server: Server;
  let url: string;
  let tmp: TmpDir;
  const seen: { url: string; authorization: string | undefined }[] = [];
  let dropNext = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
        if (dropNext > 0) {
          dropNext -= 1;
          req.socket.destroy();
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ metadata: { name: 'n1' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tmp = makeTmpDir('https-resource-client-');
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    tmp.remove();
  });

  it('reads the service account like client-go InClusterConfig', () => {
    const dir = join(tmp.path, 'sa');
    tmp.write('sa/ca.crt', 'CA');
    tmp.write('sa/token', 'tok\n');
    expect(
      credentialsInCluster(
        { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
        dir,
      ),
    ).toEqual({ server: 'https://[fd00::1]:6443', ca: 'CA', tokenFile: `${dir}/token` });
    expect(() => credentialsInCluster({}, dir)).toThrow(/KUBERNETES_SERVICE_HOST/);
  });

  it('reads a token file again once a minute, keeping the old token while it cannot', async () => {
    const file = tmp.write('token', 'one\n');
    let now = 0;
    const client = new HttpsResourceClient({ server: url, tokenFile: file }, { now: () => now });
    seen.length = 0;
    await client.get(Resources.node, 'n1');
    tmp.write('token', 'two\n');
    now = 59_000;
    await client.get(Resources.node, 'n1');
    now = 60_000;
    await client.get(Resources.node, 'n1');
    rmSync(file);
    now = 130_000;
    await client.get(Resources.node, 'n1');
    client.close();
    expect(seen.map((s) => s.authorization)).toEqual([
      'Bearer one',
      'Bearer one',
      'Bearer two',
      'Bearer two',
    ]);
  });

  it('refuses a kubeconfig with an exec plugin; the factory gives it to client-node', async () => {
    const path = tmp.write(
      'exec.kubeconfig',
      tokenKubeconfig(url).replace(
        '  user: {token: secret}',
        '  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false}}',
      ),
    );
    expect(() => credentialsFromKubeconfig(path)).toThrow(UnsupportedKubeconfigError);
    const client = await createResourceClient({ kubeconfigPath: path });
    expect(client).not.toBeInstanceOf(HttpsResourceClient);
    const plain = await createResourceClient({
      kubeconfigPath: tmp.write('plain.kubeconfig', tokenKubeconfig(url)),
    });
    expect(plain).toBeInstanceOf(HttpsResourceClient);
    if (plain instanceof HttpsResourceClient) plain.close();
  });

  it('sends a GET once more when its reused connection was closed, and never a POST', async () => {
    const client = new HttpsResourceClient({ server: url, token: 't' });
    await client.get(Resources.node, 'n1'); // opens the keep-alive connection
    seen.length = 0;
    dropNext = 1;
    expect(await client.get(Resources.node, 'n1')).toEqual({ metadata: { name: 'n1' } });
    expect(seen).toHaveLength(2);
    seen.length = 0;
    dropNext = 1;
    await expect(client.create(Resources.node, { metadata: { name: 'n2' } })).rejects.toMatchObject(
      { code: 'ECONNRESET' },
    );
    expect(seen).toHaveLength(1);
    client.close();
  });
});

describe('credentials from files read elsewhere (a node’s)', () => {
  it('lists the files a selected context names, made absolute, and reads them all with the reader given', () => {
    const text = [
      'clusters: [{name: c, cluster: {server: "https://h:6443", certificate-authority: ca.crt}}]',
      'users: [{name: u, user: {tokenFile: token, client-certificate: /pki/cert.pem, client-key-data: S0VZ}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n');
    const selection = selectKubeconfigContext(parseKubeconfig(text, '/var/lib/kubelet/kubeconfig'));
    expect(selectionFiles(selection)).toEqual([
      '/var/lib/kubelet/ca.crt',
      '/pki/cert.pem',
      '/var/lib/kubelet/token',
    ]);
    const files: Record<string, string> = {
      '/var/lib/kubelet/ca.crt': 'CA',
      '/pki/cert.pem': 'CERT',
      '/var/lib/kubelet/token': 'tok\n',
    };
    // the token is read now, through the reader: the client would read a token file on this machine
    expect(credentialsFromSelection(selection, (f) => files[f] ?? '')).toEqual({
      server: 'https://h:6443',
      ca: 'CA',
      token: 'tok',
      cert: 'CERT',
      key: 'KEY',
    });
  });
});
