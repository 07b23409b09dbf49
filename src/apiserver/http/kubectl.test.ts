/**
 * The real kubectl against the app on a loopback socket (plain HTTP, so kubectl sends no
 * credentials and the test authenticator maps everyone to an admin). Each run gets a fresh
 * discovery cache. Skipped where no kubectl is installed.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, newTestApp, type TestApp } from '../../../test/support/apiserver-test-app.js';

const kubectlPath = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
const MCO = 'machineconfiguration.openshift.io';
const H = 3600_000;

let t: TestApp;
let server: ServerType;
let dir: string;
let kubeconfig: string;
let runs = 0;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function kubectl(args: readonly string[], binary = kubectlPath ?? 'kubectl'): Promise<Run> {
  const cacheDir = join(dir, `cache-${++runs}`);
  return new Promise((resolve) => {
    execFile(
      binary,
      [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stdout,
          stderr,
        });
      },
    );
  });
}

/** Rows as whitespace-separated cells. */
const rows = (out: string): string[][] =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));

async function seed(): Promise<void> {
  const opts = { user: Admin, dryRun: false };
  const mcp = t.rt('MachineConfigPool');
  for (const pool of ['master', 'worker']) {
    await t.store.create(
      mcp,
      undefined,
      { apiVersion: `${MCO}/v1`, kind: 'MachineConfigPool', metadata: { name: pool }, spec: {} },
      opts,
    );
    const current = await t.store.get(mcp, undefined, pool);
    await t.store.update(
      mcp,
      undefined,
      pool,
      {
        ...current,
        status: {
          configuration: { name: `rendered-${pool}-abc123` },
          conditions: [
            {
              type: 'Updated',
              status: 'True',
              lastTransitionTime: '2026-11-29T09:15:00Z',
              reason: '',
              message: '',
            },
            {
              type: 'Updating',
              status: 'False',
              lastTransitionTime: '2026-11-29T09:15:00Z',
              reason: '',
              message: '',
            },
            {
              type: 'Degraded',
              status: 'False',
              lastTransitionTime: '2026-11-29T09:15:00Z',
              reason: '',
              message: '',
            },
          ],
          machineCount: 2,
          readyMachineCount: 2,
          updatedMachineCount: 2,
          degradedMachineCount: 0,
        },
      },
      { ...opts, subresource: 'status' },
    );
  }
  await t.store.create(
    t.rt('Node'),
    undefined,
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/worker': '' } },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        nodeInfo: {
          kubeletVersion: 'v1.32.5',
          machineID: 'm1',
          systemUUID: 's1',
          bootID: 'b1',
          kernelVersion: '5.14.0-427.el9.x86_64',
          osImage: 'Red Hat Enterprise Linux CoreOS 9.6',
          containerRuntimeVersion: 'cri-o://1.32.4',
          kubeProxyVersion: '',
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
        addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
      },
    },
    opts,
  );
}

describe.skipIf(kubectlPath === undefined)('kubectl against the app', () => {
  beforeAll(async () => {
    t = await newTestApp();
    await seed();
    t.clock.advance(5 * H);
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
        resolve(s);
      });
    });
    if ('requestTimeout' in server) {
      server.requestTimeout = 0;
      server.timeout = 0;
    }
    const { port } = server.address() as AddressInfo;
    dir = await mkdtemp(join(tmpdir(), 'kubectl-'));
    kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}`,
        '  name: c',
        'contexts:',
        '- context: {cluster: c, user: u, namespace: default}',
        '  name: ctx',
        'current-context: ctx',
        'users:',
        '- name: u',
        '  user: {}',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('prints get mcp as oc does', async () => {
    const run = await kubectl(['get', 'mcp']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'NAME     CONFIG                   UPDATED   UPDATING   DEGRADED   MACHINECOUNT   READYMACHINECOUNT   UPDATEDMACHINECOUNT   DEGRADEDMACHINECOUNT   AGE',
        'master   rendered-master-abc123   True      False      False      2              2                   2                     0                      5h',
        'worker   rendered-worker-abc123   True      False      False      2              2                   2                     0                      5h',
        '',
      ].join('\n'),
    });
  });

  it('prints get nodes, wide columns included', async () => {
    expect((await kubectl(['get', 'nodes'])).stdout).toBe(
      'NAME   STATUS   ROLES    AGE   VERSION\nn1     Ready    worker   5h    v1.32.5\n',
    );
    expect(rows((await kubectl(['get', 'nodes', '-o', 'wide'])).stdout)[1]).toEqual([
      'n1',
      'Ready',
      'worker',
      '5h',
      'v1.32.5',
      '10.0.0.5',
      '<none>',
      'Red',
      'Hat',
      'Enterprise',
      'Linux',
      'CoreOS',
      '9.6',
      '5.14.0-427.el9.x86_64',
      'cri-o://1.32.4',
    ]);
  });

  it('lists the API resources from discovery', async () => {
    const run = await kubectl(['api-resources']);
    expect(run.code).toBe(0);
    const byName = new Map(rows(run.stdout).map((r) => [r[0], r]));
    expect(byName.get('machineconfigpools')).toEqual([
      'machineconfigpools',
      'mcp',
      `${MCO}/v1`,
      'false',
      'MachineConfigPool',
    ]);
    expect(byName.get('machineconfigs')).toEqual([
      'machineconfigs',
      'mc',
      `${MCO}/v1`,
      'false',
      'MachineConfig',
    ]);
    expect(byName.get('pods')).toEqual(['pods', 'po', 'v1', 'true', 'Pod']);
    expect(byName.get('kubeletconfigs')).toEqual([
      'kubeletconfigs',
      `${MCO}/v1`,
      'false',
      'KubeletConfig',
    ]);
  });

  it('explains mcp.spec from the OpenAPI v3 schemas', async () => {
    const run = await kubectl(['explain', 'mcp.spec']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `GROUP:      ${MCO}\nKIND:       MachineConfigPool\nVERSION:    v1\n\nFIELD: spec <Object>\n`,
    );
    expect(run.stdout).toContain('  paused\t<boolean>\n');
    expect(run.stdout).toContain('  machineConfigSelector\t<Object>\n');
  });

  it('creates a namespace from the protobuf body kubectl sends', async () => {
    expect(await kubectl(['create', 'namespace', 'team-a'])).toEqual({
      code: 0,
      stdout: 'namespace/team-a created\n',
      stderr: '',
    });
    expect((await t.store.get(t.rt('Namespace'), undefined, 'team-a')).metadata.name).toBe(
      'team-a',
    );
  });

  it('fails a plain patch of a custom resource as a real cluster does', async () => {
    expect(await kubectl(['patch', 'mcp', 'worker', '-p', '{"spec":{"paused":true}}'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: application/strategic-merge-patch+json is not supported by ${MCO}/v1, Kind=MachineConfigPool: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n`,
    });
    expect(
      (
        await kubectl([
          'patch',
          'mcp',
          'worker',
          '--type',
          'merge',
          '-p',
          '{"spec":{"paused":true}}',
        ])
      ).stdout,
    ).toBe(`machineconfigpool.${MCO}/worker patched\n`);
  });

  it('reports NotFound', async () => {
    expect(await kubectl(['get', 'mcp', 'nosuch'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error from server (NotFound): machineconfigpools.${MCO} "nosuch" not found\n`,
    });
  });

  it('applies a MachineConfig: created, configured, unchanged, then deletes it', async () => {
    const mc = (key: string, extraLabel = ''): string => `apiVersion: ${MCO}/v1
kind: MachineConfig
metadata:
  name: 99-worker-ssh
  labels:
    machineconfiguration.openshift.io/role: worker${extraLabel}
spec:
  config:
    ignition:
      version: 3.4.0
    passwd:
      users:
      - name: core
        sshAuthorizedKeys: ["${key}"]
`;
    const file = join(dir, 'mc.yaml');
    await writeFile(file, mc('ssh-ed25519 AAAA one'));
    expect(await kubectl(['apply', '-f', file])).toEqual({
      code: 0,
      stdout: `machineconfig.${MCO}/99-worker-ssh created\n`,
      // No pool in this API server selects the config: kubectl prints the API server's warning.
      stderr: expect.stringMatching(
        /^(Warning: could not find any MachineConfigPool set for MachineConfig 99-worker-ssh with labels: map\[[^\]\n]*\]\n)+$/,
      ) as unknown,
    });
    await writeFile(file, mc('ssh-ed25519 AAAA two', '\n    extra: "yes"'));
    expect(await kubectl(['apply', '-f', file])).toEqual({
      code: 0,
      stdout: `machineconfig.${MCO}/99-worker-ssh configured\n`,
      // No pool in this API server selects the config: kubectl prints the API server's warning.
      stderr: expect.stringMatching(
        /^(Warning: could not find any MachineConfigPool set for MachineConfig 99-worker-ssh with labels: map\[[^\]\n]*\]\n)+$/,
      ) as unknown,
    });
    const stored = await t.store.get(t.rt('MachineConfig'), undefined, '99-worker-ssh');
    expect(stored.metadata).toMatchObject({ generation: 2, labels: { extra: 'yes' } });
    expect(JSON.stringify(stored['spec'])).toContain('ssh-ed25519 AAAA two');
    expect((await kubectl(['apply', '-f', file])).stdout).toBe(
      `machineconfig.${MCO}/99-worker-ssh unchanged\n`,
    );
    expect(rows((await kubectl(['get', 'mc'])).stdout)).toEqual([
      ['NAME', 'GENERATEDBYCONTROLLER', 'IGNITIONVERSION', 'AGE'],
      ['99-worker-ssh', '3.4.0', '0s'],
    ]);
    expect((await kubectl(['delete', 'mc', '99-worker-ssh'])).stdout).toBe(
      `machineconfig.${MCO} "99-worker-ssh" deleted\n`,
    );
  });

  it.each(['kubectl.1.29', 'kubectl.1.33'])(
    'serves %s (v2beta1 / v2 discovery)',
    async (binary) => {
      const path = join(dirname(realpathSync(kubectlPath ?? '')), binary);
      if (!existsSync(path)) return;
      const run = await kubectl(['get', 'mcp', '-o', 'name'], path);
      expect(run).toEqual({
        code: 0,
        stdout: `machineconfigpool.${MCO}/master\nmachineconfigpool.${MCO}/worker\n`,
        stderr: '',
      });
    },
  );

  it('shows a change in get -w', async () => {
    const child = spawn(kubectlPath ?? 'kubectl', [
      `--kubeconfig=${kubeconfig}`,
      `--cache-dir=${join(dir, 'watch-cache')}`,
      'get',
      'mcp',
      '-w',
    ]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      await waitFor(() => out.includes('worker'));
      const mcp = t.rt('MachineConfigPool');
      const current = await t.store.get(mcp, undefined, 'worker');
      await t.store.update(
        mcp,
        undefined,
        'worker',
        { ...current, status: { ...(current['status'] as object), machineCount: 3 } },
        { user: Admin, dryRun: false, subresource: 'status' },
      );
      await waitFor(() => rows(out).length >= 4);
    } finally {
      child.kill();
    }
    expect(rows(out)[3]).toEqual([
      'worker',
      'rendered-worker-abc123',
      'True',
      'False',
      'False',
      '3',
      '2',
      '2',
      '0',
      '5h',
    ]);
  });
});

async function waitFor(condition: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
