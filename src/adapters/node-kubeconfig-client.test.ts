import { X509Certificate } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { TestPki } from '../../test/support/kube-apiserver-pki.js';
import { makeTmpDir, type TmpDir } from '../../test/support/tmp-dir.js';
import { Resources } from '../api/resource-refs.js';
import { NodeKubeconfigClient } from './node-kubeconfig-client.js';
import { createRootedNodeFiles } from './rooted-node-files.js';

/** An HTTPS server that requires a client certificate and answers each GET with its subject. */
let server: Server;
let url: string;
let pki: TestPki;
let tmp: TmpDir;

beforeAll(async () => {
  pki = await TestPki.create();
  const serving = await pki.serving();
  server = createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: pki.caPem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const socket = req.socket;
      const peer = socket instanceof TLSSocket ? socket.getPeerX509Certificate() : undefined;
      const subject = peer === undefined ? '' : new X509Certificate(peer.raw).subject;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: subject } }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  tmp = makeTmpDir('mco-node-kubeconfig-');
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  tmp.remove();
});

/** A kubelet-style kubeconfig whose CA and client certificate are files named relative to it. */
function kubeletKubeconfig(caPath: string, certPath: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server: url, 'certificate-authority': caPath } }],
    users: [{ name: 'kubelet', user: { 'client-certificate': certPath, 'client-key': certPath } }],
    contexts: [{ name: 'kubelet', context: { cluster: 'local', user: 'kubelet' } }],
    'current-context': 'kubelet',
  });
}

async function writeNodeCert(root: string, node: string): Promise<void> {
  const c = await pki.client(`system:node:${node}`, ['system:nodes']);
  writeFileSync(join(root, 'var/lib/kubelet/pki/kubelet-client-current.pem'), c.certPem + c.keyPem);
}

describe('NodeKubeconfigClient', () => {
  it('reads the kubeconfig and the files it names on the node, and uses a rotated certificate at the next call', async () => {
    const root = join(tmp.path, 'rotate');
    mkdirSync(join(root, 'var/lib/kubelet/pki'), { recursive: true });
    writeFileSync(join(root, 'var/lib/kubelet/ca.crt'), pki.caPem);
    writeFileSync(
      join(root, 'var/lib/kubelet/kubeconfig'),
      kubeletKubeconfig('ca.crt', 'pki/kubelet-client-current.pem'),
    );
    await writeNodeCert(root, 'worker-0');
    const client = new NodeKubeconfigClient(
      createRootedNodeFiles({ root }),
      '/var/lib/kubelet/kubeconfig',
    );
    try {
      const who = async () => (await client.get(Resources.node, 'x')).metadata.name;
      expect(await who()).toBe('CN=system:node:worker-0\nO=system:nodes');
      expect(await who()).toBe('CN=system:node:worker-0\nO=system:nodes');
      await writeNodeCert(root, 'worker-1');
      expect(await who()).toBe('CN=system:node:worker-1\nO=system:nodes');
    } finally {
      client.close();
    }
  });

  it('never reads outside the node root: an absolute path or a symlink out of it is the node’s own', async () => {
    const root = join(tmp.path, 'confined');
    mkdirSync(join(root, 'var/lib/kubelet/pki'), { recursive: true });
    // The host's file of the same name holds a valid CA; the node's root has none.
    const hostCa = join(tmp.path, 'host-ca.crt');
    writeFileSync(hostCa, pki.caPem);
    await writeNodeCert(root, 'worker-0');
    writeFileSync(
      join(root, 'var/lib/kubelet/kubeconfig'),
      kubeletKubeconfig(hostCa, '/var/lib/kubelet/pki/kubelet-client-current.pem'),
    );
    const client = new NodeKubeconfigClient(
      createRootedNodeFiles({ root }),
      '/var/lib/kubelet/kubeconfig',
    );
    await expect(client.get(Resources.node, 'x')).rejects.toThrow(
      `${hostCa}: no such file on the node`,
    );
    // A symlink in the root that points at the host's file resolves inside the root.
    symlinkSync(hostCa, join(root, 'var/lib/kubelet/ca.crt'));
    writeFileSync(
      join(root, 'var/lib/kubelet/kubeconfig'),
      kubeletKubeconfig('ca.crt', 'pki/kubelet-client-current.pem'),
    );
    await expect(client.get(Resources.node, 'x')).rejects.toThrow('no such file on the node');
    client.close();
  });

  it('names the kubeconfig when the node has none', async () => {
    mkdirSync(join(tmp.path, 'empty'));
    const client = new NodeKubeconfigClient(
      createRootedNodeFiles({ root: join(tmp.path, 'empty') }),
      '/var/lib/kubelet/kubeconfig',
    );
    await expect(client.get(Resources.node, 'x')).rejects.toThrow(
      '/var/lib/kubelet/kubeconfig: no such file on the node',
    );
  });
});
