/**
 * Authentication and authorization of the running `mco apiserver`: bearer tokens and client
 * certificates over TLS only, system:masters, and node identities (client certificates from
 * `mco apiserver node-kubeconfig`, signed with the cluster CA), restricted as NodeRestriction does.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  kubectl,
  RepoRoot,
  startApiServer,
  type ApiServerProcess,
} from './apiserver-harness.js';

let server: ApiServerProcess;
let work: string;

function node(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
}

const mergePatch = (labels: Record<string, string>) => ({
  body: JSON.stringify({ metadata: { labels } }),
  contentType: 'application/merge-patch+json',
});

function nodeKubeconfigOf(nodeName: string): string {
  const text = execFileSync(
    process.execPath,
    [
      join(RepoRoot, 'bin/mco.js'),
      'apiserver',
      'node-kubeconfig',
      '--data-dir',
      server.dataDir,
      '--node',
      nodeName,
    ],
    {
      encoding: 'utf8',
    },
  );
  const path = join(work, `${nodeName}.kubeconfig`);
  writeFileSync(path, text);
  return path;
}

/** The client certificate and key of a kubeconfig (inline data). */
function clientCertificateOf(kubeconfigText: string): { cert: string; key: string } {
  const field = (name: string) =>
    Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfigText)?.[1] ?? '', 'base64').toString();
  return { cert: field('client-certificate-data'), key: field('client-key-data') };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mco-auth-e2e-'));
  server = await startApiServer();
  const admin = server.token('admin');
  for (const name of ['n1', 'n2']) {
    const created = await api(server, 'POST', '/api/v1/nodes', {
      token: admin,
      body: node(name),
      contentType: 'application/json',
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await server.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe('mco apiserver authentication', () => {
  it('answers 401 Unauthorized without a token, and with an unknown one', async () => {
    for (const token of [undefined, 'not-a-token', 'abcdef.0123456789abcdef']) {
      const answer = await api(
        server,
        'GET',
        '/api/v1/nodes',
        token === undefined ? {} : { token },
      );
      expect(answer.status).toBe(401);
      expect(answer.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
  });

  it('kubectl without credentials is told to log in', async () => {
    const kubeconfig = join(work, 'anonymous.kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${server.url}\n    certificate-authority: ${join(server.dataDir, 'ca.crt')}\nusers:\n- name: u\n  user: {token: wrong}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`,
    );
    const result = await kubectl(['get', 'nodes'], {
      kubeconfig,
      cacheDir: join(work, 'cache-anon'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'error: You must be logged in to the server (the server has asked for the client to provide credentials)',
    );
  });

  it('lets the admin (system:masters) do anything', async () => {
    const result = await kubectl(['label', 'node', 'n2', 'by=admin'], {
      kubeconfig: server.kubeconfig('admin'),
      cacheDir: join(work, 'cache-admin'),
    });
    expect(result).toMatchObject({ code: 0, stdout: 'node/n2 labeled\n' });
    const patched = await api(server, 'PATCH', '/api/v1/nodes/n1', {
      token: server.token('admin'),
      ...mergePatch({ admin: 'yes' }),
    });
    expect(patched.status).toBe(200);
  });

  it('keeps the MCS identity to what deploy/ grants it', async () => {
    const answer = await api(server, 'DELETE', '/api/v1/nodes/x', { token: server.token('mcs') });
    expect(answer.status).toBe(403);
    expect(answer.json()['message']).toBe(
      'nodes "x" is forbidden: User "system:serviceaccount:openshift-machine-config-operator:machine-config-server" cannot delete resource "nodes" in API group "" at the cluster scope',
    );
    expect(
      (
        await api(server, 'GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigs', {
          token: server.token('mcs'),
        })
      ).status,
    ).toBe(200);
  });
});

describe('node identities', () => {
  let n1: string;
  let n1Cert: { cert: string; key: string };

  beforeAll(() => {
    n1 = nodeKubeconfigOf('n1');
    n1Cert = clientCertificateOf(readFileSync(n1, 'utf8'));
  });

  it('are issued while the server runs and work at once (no restart)', async () => {
    const pidBefore = server.pid;
    const result = await kubectl(['get', 'node', 'n1', '-o', 'jsonpath={.metadata.name}'], {
      kubeconfig: n1,
      cacheDir: join(work, 'cache-n1'),
    });
    expect(result).toMatchObject({ code: 0, stdout: 'n1' });
    expect(server.pid).toBe(pidBefore);
  });

  it('may patch their own Node (kubectl label)', async () => {
    const result = await kubectl(['label', 'node', 'n1', 'own=yes'], {
      kubeconfig: n1,
      cacheDir: join(work, 'cache-n1'),
    });
    expect(result).toMatchObject({ code: 0, stdout: 'node/n1 labeled\n' });
    const status = await api(server, 'PATCH', '/api/v1/nodes/n1/status', {
      clientCertificate: n1Cert,
      body: JSON.stringify({
        status: {
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' }],
        },
      }),
      contentType: 'application/merge-patch+json',
    });
    expect(status.status).toBe(200);
  });

  it('get 403 patching another Node, and it is left unchanged', async () => {
    const answer = await api(server, 'PATCH', '/api/v1/nodes/n2', {
      clientCertificate: n1Cert,
      ...mergePatch({ hijacked: 'yes' }),
    });
    expect(answer.status).toBe(403);
    expect(answer.json()).toMatchObject({
      reason: 'Forbidden',
      code: 403,
      message: 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    });
    const n2 = await api(server, 'GET', '/api/v1/nodes/n2', { token: server.token('admin') });
    expect(n2.json<{ metadata: { labels?: Record<string, string> } }>().metadata.labels).toEqual({
      by: 'admin',
    });
  });

  it('cannot even read another Node through kubectl', async () => {
    const result = await kubectl(['label', 'node', 'n2', 'x=y'], {
      kubeconfig: n1,
      cacheDir: join(work, 'cache-n1'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Error from server (Forbidden): nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object\n`,
    );
  });

  it('get 403 writing a MachineConfig', async () => {
    const mc = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '99-evil' },
      spec: {},
    };
    const answer = await api(
      server,
      'POST',
      '/apis/machineconfiguration.openshift.io/v1/machineconfigs',
      {
        clientCertificate: n1Cert,
        body: JSON.stringify(mc),
        contentType: 'application/json',
      },
    );
    expect(answer.status).toBe(403);
    expect(answer.json()['message']).toBe(
      'machineconfigs.machineconfiguration.openshift.io is forbidden: User "system:node:n1" cannot create resource "machineconfigs" in API group "machineconfiguration.openshift.io" at the cluster scope',
    );
    const result = await kubectl(['create', '-f', '-'], {
      kubeconfig: n1,
      cacheDir: join(work, 'cache-n1'),
      input: JSON.stringify(mc),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error from server (Forbidden): error when creating "STDIN": machineconfigs.machineconfiguration.openshift.io is forbidden: User "system:node:n1" cannot create resource "machineconfigs" in API group "machineconfiguration.openshift.io" at the cluster scope\n',
    );
  });

  it('may not read MachineConfigs (the daemon reads as its ServiceAccount), and list pods on their node only', async () => {
    const mcs = await api(
      server,
      'GET',
      '/apis/machineconfiguration.openshift.io/v1/machineconfigs',
      {
        clientCertificate: n1Cert,
      },
    );
    expect(mcs.status).toBe(403);
    expect(mcs.json()['message']).toBe(
      'machineconfigs.machineconfiguration.openshift.io is forbidden: User "system:node:n1" cannot list resource "machineconfigs" in API group "machineconfiguration.openshift.io" at the cluster scope',
    );
    expect(
      (
        await api(server, 'GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigs', {
          token: server.token('daemon'),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api(server, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', {
          clientCertificate: n1Cert,
        })
      ).status,
    ).toBe(200);
    const all = await api(server, 'GET', '/api/v1/pods', { clientCertificate: n1Cert });
    expect(all.status).toBe(403);
    expect(all.json()['message']).toBe(
      'pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
    );
  });

  it('cannot register a Node under another name', async () => {
    const answer = await api(server, 'POST', '/api/v1/nodes', {
      clientCertificate: n1Cert,
      body: node('n3'),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(403);
    expect(answer.json()['message']).toBe(
      'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"',
    );
  });

  it('are client certificates for system:node:<name> in system:nodes, signed by the cluster CA', () => {
    const cert = new X509Certificate(n1Cert.cert);
    expect(cert.subject.split('\n').sort()).toEqual(['CN=system:node:n1', 'O=system:nodes']);
    expect(cert.checkIssued(new X509Certificate(server.caPem))).toBe(true);
    expect(readFileSync(n1, 'utf8')).not.toMatch(/token:/);
  });

  it('keep the certificate a connection began with: the server refuses TLS renegotiation', async () => {
    // TLS 1.2, the last version with renegotiation; the first request reads the certificate
    const socket: TLSSocket = connect({
      host: '127.0.0.1',
      port: server.port,
      ca: server.caPem,
      cert: n1Cert.cert,
      key: n1Cert.key,
      maxVersion: 'TLSv1.2',
    });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        resolve();
      }),
    );
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) =>
      socket.once('secureConnect', () => {
        resolve();
      }),
    );
    socket.write('GET /api/v1/nodes/n1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    while (!Buffer.concat(received).toString().includes('"name":"n1"')) await sleep(20);
    expect(Buffer.concat(received).toString()).toMatch(/^HTTP\/1\.1 200/);
    const renegotiated = await Promise.race([
      new Promise<boolean>((resolve) => {
        const asked = socket.renegotiate({ rejectUnauthorized: true }, (e) => {
          resolve(e === null);
        });
        if (!asked) resolve(false);
      }),
      closed.then(() => false),
    ]);
    expect(renegotiated).toBe(false);
    await closed;
    expect(server.stderr).not.toMatch(/uncaught|unhandled/i);
  });

  it('do not need a token: the certificate alone authenticates, and a bad token beside it does not matter', async () => {
    expect(
      (await api(server, 'GET', '/api/v1/nodes/n1', { clientCertificate: n1Cert })).status,
    ).toBe(200);
    expect(
      (
        await api(server, 'GET', '/api/v1/nodes/n1', {
          clientCertificate: n1Cert,
          token: 'not-a-token',
        })
      ).status,
    ).toBe(200);
  });
});

describe('--advertise-address', () => {
  it('is in the serving certificate and the kubeconfigs, and kubectl reaches the server by it', async () => {
    const advertised = await startApiServer({
      host: '0.0.0.0',
      extraArgs: ['--advertise-address', '127.0.0.2'],
    });
    try {
      expect(readFileSync(advertised.kubeconfig('admin'), 'utf8')).toContain(
        `server: https://127.0.0.2:${advertised.port}\n`,
      );
      const result = await kubectl(['get', 'ns', 'default', '-o', 'name'], {
        kubeconfig: advertised.kubeconfig('admin'),
        cacheDir: join(work, 'cache-advertised'),
      });
      expect(result).toMatchObject({ code: 0, stdout: 'namespace/default\n' });
    } finally {
      await advertised.dispose();
    }
  });
});
