/**
 * The same kubectl commands with every kubectl the machine ships (1.27 … 1.33) against
 * `mco apiserver`, none with `--validate=false`: 1.27 and 1.28 validate, explain and diff through
 * `/openapi/v2` (protobuf), every version validates a `kind: List` through it. Server-side apply
 * with two managers: the 409 names the field and the other manager, `--force-conflicts` takes it,
 * `--show-managed-fields` shows both. `describe node` shows the events the daemon's recorder
 * writes about its Node (named without a uid, as the daemon names it). The API server's `/metrics`
 * is read with `kubectl get --raw` and passes `promtool check metrics`. `auth can-i` (also
 * `--list` and `--as` a ServiceAccount), `auth whoami` (1.27 asks SelfSubjectReview v1alpha1 or
 * v1beta1, later ones v1) and `create token` answer from the server's RBAC and TokenRequest.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpsResourceClient } from '../../src/adapters/https-resource-client.js';
import { Resources } from '../../src/api/resource-refs.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { ApiEventRecorder } from '../../src/runtime/event-recorder.js';
import { silentLogger } from '../../src/ports/logger.js';
import { parseCanIList } from '../envtest/granted-rules.js';
import {
  api,
  kubectl,
  startApiServer,
  type ApiServerProcess,
  type KubectlResult,
} from './apiserver-harness.js';

const Group = 'machineconfiguration.openshift.io';
const McoNamespace = 'openshift-machine-config-operator';
const DaemonSa = `system:serviceaccount:${McoNamespace}:machine-config-daemon`;
const Versions = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];
const Promtool = '/usr/bin/promtool';
const NoPoolWarning =
  /^Warning: could not find any MachineConfigPool set for MachineConfig \S+ with labels: map\[.*\]$/;

let server: ApiServerProcess;
let work: string;
let caches = 0;

/** kubectl of `version` with a fresh discovery cache. */
function k(
  version: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<KubectlResult> {
  caches += 1;
  return kubectl(args, {
    kubeconfig: server.kubeconfig('admin'),
    cacheDir: join(work, `cache-${caches}`),
    version,
    env,
  });
}

function file(name: string, content: string): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

const tag = (version: string): string => version.replace('.', '-');

const machineConfig = (
  name: string,
  server: string,
  labels = 'machineconfiguration.openshift.io/role: worker',
) => `apiVersion: ${Group}/v1
kind: MachineConfig
metadata:
  name: ${name}
  labels:
    ${labels}
spec:
  config:
    ignition:
      version: 3.4.0
    storage:
      files:
      - path: /etc/chrony.conf
        mode: 420
        contents:
          source: data:,pool%20${server}%20iburst
`;

const list = (v: string, extra = '') => `apiVersion: v1
kind: List
items:
- apiVersion: ${Group}/v1
  kind: MachineConfig
  metadata:
    name: 80-list-${tag(v)}
  spec:
    ${extra}config:
      ignition:
        version: 3.4.0
- apiVersion: v1
  kind: Node
  metadata:
    name: list-node-${tag(v)}
    labels:
      node-role.kubernetes.io/worker: ""
`;

async function json(path: string): Promise<Record<string, unknown>> {
  return (await api(server, 'GET', path, { token: server.token() })).json();
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mco-kubectl-versions-'));
  server = await startApiServer();
  // the editor kubectl edit runs: flips the chrony server in place
  const editor = file('editor.sh', '#!/bin/sh\nsed -i "s/edit-before/edit-after/" "$1"\n');
  chmodSync(editor, 0o755);
});

afterAll(async () => {
  await server.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe.each(Versions)('kubectl %s, without --validate=false', (v) => {
  const t = tag(v);

  it('apply (client-side): created, then configured', async () => {
    const name = `50-csa-${t}`;
    expect(
      await k(v, ['apply', '-f', file(`csa-${t}.yaml`, machineConfig(name, 'a.example.org'))]),
    ).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/${name} created\n`,
    });
    expect(
      await k(v, ['apply', '-f', file(`csa2-${t}.yaml`, machineConfig(name, 'b.example.org'))]),
    ).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/${name} configured\n`,
    });
  });

  it('apply --server-side, then diff shows a change without making it', async () => {
    const name = `60-ssa-${t}`;
    expect(
      await k(v, [
        'apply',
        '--server-side',
        '-f',
        file(`ssa-${t}.yaml`, machineConfig(name, 'c.example.org')),
      ]),
    ).toMatchObject({ code: 0, stdout: `machineconfig.${Group}/${name} serverside-applied\n` });
    const diff = await k(v, [
      'diff',
      '-f',
      file(`diff-${t}.yaml`, machineConfig(name, 'd.example.org')),
    ]);
    // No pool in this API server selects the config: its dry run is warned about, and only that.
    expect(
      diff.stderr.split('\n').filter((l) => l !== '' && !NoPoolWarning.test(l)),
      diff.stderr,
    ).toEqual([]);
    expect(diff.code).toBe(1); // 1: differences found
    expect(diff.stdout).toContain('-          source: data:,pool%20c.example.org%20iburst');
    expect(diff.stdout).toContain('+          source: data:,pool%20d.example.org%20iburst');
    const live = (await json(`/apis/${Group}/v1/machineconfigs/${name}`)) as {
      spec: { config: { storage: { files: { contents: { source: string } }[] } } };
    };
    expect(live.spec.config.storage.files[0]?.contents.source).toBe(
      'data:,pool%20c.example.org%20iburst',
    );
  });

  it('edit with a non-interactive editor', async () => {
    const name = `65-edit-${t}`;
    expect(
      (await k(v, ['create', '-f', file(`edit-${t}.yaml`, machineConfig(name, 'edit-before'))]))
        .code,
    ).toBe(0);
    expect(
      await k(v, ['edit', 'mc', name], { KUBE_EDITOR: join(work, 'editor.sh') }),
    ).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/${name} edited\n`,
    });
    const source = await k(v, [
      'get',
      'mc',
      name,
      '-o',
      'jsonpath={.spec.config.storage.files[0].contents.source}',
    ]);
    expect(source.stdout).toBe('data:,pool%20edit-after%20iburst');
  });

  it('explain mc.spec.config', async () => {
    const result = await k(v, ['explain', 'mc.spec.config']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/KIND:\s+MachineConfig/);
    expect(result.stdout).toContain('Config is a Ignition Config object');
  });

  it('create -f a kind: List, validated item by item through /openapi/v2', async () => {
    expect(await k(v, ['create', '-f', file(`list-${t}.yaml`, list(v))])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/80-list-${t} created\nnode/list-node-${t} created\n`,
    });
    // the client-side validation is real: an unknown field in an item is refused before any write
    const bad = await k(v, [
      'create',
      '-f',
      file(`bad-list-${t}.yaml`, list(`${v}-bad`, 'bogus: 1\n    ')),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      `unknown field "bogus" in io.openshift.machineconfiguration.v1.MachineConfig.spec`,
    );
    expect(
      (
        await api(server, 'GET', `/apis/${Group}/v1/machineconfigs/80-list-${t}-bad`, {
          token: server.token(),
        })
      ).status,
    ).toBe(404);
  });

  it('server-side apply: a conflict names the field and the other manager; --force-conflicts takes it', async () => {
    const name = `70-owners-${t}`;
    const a = file(`own-a-${t}.yaml`, machineConfig(name, 'e.example.org', 'team: a'));
    const b = file(`own-b-${t}.yaml`, machineConfig(name, 'e.example.org', 'team: b'));
    expect((await k(v, ['apply', '--server-side', '--field-manager=mgr-a', '-f', a])).code).toBe(0);
    const conflict = await k(v, ['apply', '--server-side', '--field-manager=mgr-b', '-f', b]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain(
      `Apply failed with 1 conflict: conflict with "mgr-a": .metadata.labels.team`,
    );
    expect(conflict.stderr).toContain('--force-conflicts');
    expect(
      await k(v, ['apply', '--server-side', '--field-manager=mgr-b', '--force-conflicts', '-f', b]),
    ).toMatchObject({ code: 0, stdout: `machineconfig.${Group}/${name} serverside-applied\n` });
    const shown = await k(v, ['get', 'mc', name, '-o', 'yaml', '--show-managed-fields']);
    expect(shown.stdout).toContain('manager: mgr-a');
    expect(shown.stdout).toContain('manager: mgr-b');
    expect(shown.stdout).toContain('f:team: {}');
    expect(shown.stdout).toContain('team: b');
  });

  it('client-side apply, then apply --server-side: no conflict, dropped fields go, the rest stays', async () => {
    const name = `75-migrate-${t}`;
    const csa = file(`mig-${t}.yaml`, machineConfig(name, 'f.example.org', '{team: a, gone: x}'));
    expect((await k(v, ['apply', '-f', csa])).code).toBe(0);
    const ssa = file(`mig2-${t}.yaml`, machineConfig(name, 'g.example.org', '{team: b}'));
    expect(await k(v, ['apply', '--server-side', '-f', ssa])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/${name} serverside-applied\n`,
    });
    const live = (await json(`/apis/${Group}/v1/machineconfigs/${name}`)) as {
      metadata: { labels?: Record<string, string>; managedFields?: { manager: string }[] };
      spec: { config: { storage: { files: { contents: { source: string } }[] } } };
    };
    expect(live.metadata.labels).toEqual({ team: 'b' });
    expect(live.spec.config.storage.files[0]?.contents.source).toBe(
      'data:,pool%20g.example.org%20iburst',
    );
    expect(live.metadata.managedFields?.map((m) => m.manager)).toContain('kubectl');
  });

  it('get --raw /metrics', async () => {
    const result = await k(v, ['get', '--raw', '/metrics']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^apiserver_request_total\{verb="APPLY",dry_run="",group="machineconfiguration\.openshift\.io",version="v1",resource="machineconfigs",subresource="",scope="resource",component="apiserver",code="409"\} \d+$/m,
    );
  });

  it("describe node shows the daemon's events", async () => {
    const node = `describe-node-${t}`;
    expect(
      (
        await api(server, 'POST', '/api/v1/nodes', {
          token: server.token(),
          contentType: 'application/json',
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }),
        })
      ).status,
    ).toBe(201);
    // what `mco daemon` does: its recorder, naming the Node only by name
    const client = new HttpsResourceClient({
      server: server.url,
      ca: server.caPem,
      token: server.token(),
    });
    const recorder = new ApiEventRecorder({
      client,
      clock: systemClock,
      log: silentLogger,
      component: 'machineconfigdaemon',
      host: node,
    });
    await recorder.event(
      Resources.node,
      { metadata: { name: node } },
      'Normal',
      'NodeDone',
      `Setting node ${node}, currentConfig rendered-worker-1 to Done`,
    );
    client.close();
    const result = await k(v, ['describe', 'node', node]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('Events:              <none>');
    expect(result.stdout).toMatch(
      new RegExp(
        `Normal\\s+NodeDone\\s+\\S+\\s+machineconfigdaemon\\s+Setting node ${node}, currentConfig rendered-worker-1 to Done`,
      ),
    );
  });

  it('auth can-i, as the caller and impersonating the daemon’s ServiceAccount', async () => {
    expect(await k(v, ['auth', 'can-i', 'delete', 'nodes'])).toMatchObject({
      code: 0,
      stdout: 'yes\n',
    });
    const asDaemon = [`--as=${DaemonSa}`];
    expect(await k(v, ['auth', 'can-i', 'list', 'machineconfigs', ...asDaemon])).toMatchObject({
      code: 0,
      stdout: 'yes\n',
    });
    // kubectl exits 1 on "no"
    expect(await k(v, ['auth', 'can-i', 'patch', 'nodes', ...asDaemon])).toMatchObject({
      code: 1,
      stdout: 'no\n',
    });
    expect(
      await k(v, ['auth', 'can-i', 'get', 'configmaps', '-n', McoNamespace, ...asDaemon]),
    ).toMatchObject({ code: 0, stdout: 'yes\n' });
    expect(
      await k(v, ['auth', 'can-i', 'get', 'configmaps', '-n', 'default', ...asDaemon]),
    ).toMatchObject({ code: 1, stdout: 'no\n' });
    const list = await k(v, ['auth', 'can-i', '--list', '-n', McoNamespace, ...asDaemon]);
    expect(list.code).toBe(0);
    const rows = parseCanIList(list.stdout);
    expect(rows.get('machineconfignodes.machineconfiguration.openshift.io/status []')).toEqual(
      new Set(['create', 'update', 'patch', 'get', 'list', 'watch']),
    );
    expect(rows.get('configmaps []')).toEqual(new Set(['get', 'patch']));
    expect(rows.has('secrets []')).toBe(false);
    // the daemon's ServiceAccount may not impersonate anyone
    const daemon = await kubectl(['auth', 'can-i', 'get', 'nodes', '--as=system:admin'], {
      kubeconfig: server.kubeconfig('daemon'),
      cacheDir: join(work, `cache-daemon-${t}`),
      version: v,
    });
    expect(daemon.code).not.toBe(0);
    expect(daemon.stderr).toContain(
      `users "system:admin" is forbidden: User "${DaemonSa}" cannot impersonate resource "users" in API group "" at the cluster scope`,
    );
  });

  it('auth whoami', async () => {
    const me = await k(v, ['auth', 'whoami', '-o', 'json']);
    expect(me.code).toBe(0);
    const userInfo = (JSON.parse(me.stdout) as { status: { userInfo: unknown } }).status.userInfo;
    expect(userInfo).toMatchObject({
      username: 'system:admin',
      groups: ['system:masters', 'system:authenticated'],
    });
    const asDaemon = await k(v, ['auth', 'whoami', `--as=${DaemonSa}`]);
    expect(asDaemon.code).toBe(0);
    expect(asDaemon.stdout).toMatch(new RegExp(`Username\\s+${DaemonSa}`));
    expect(asDaemon.stdout).toContain(`system:serviceaccounts:${McoNamespace}`);
  });

  it('create token: a bound token that authenticates as the ServiceAccount', async () => {
    const token = await k(v, [
      'create',
      'token',
      'machine-config-daemon',
      '-n',
      McoNamespace,
      '--duration=15m',
    ]);
    expect(token.code).toBe(0);
    const jwt = token.stdout.trim();
    expect(jwt.split('.')).toHaveLength(3);
    const who = await api(server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token: jwt,
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      contentType: 'application/json',
    });
    expect(who.status).toBe(201);
    expect(who.json()['status']).toMatchObject({ userInfo: { username: DaemonSa } });
    // a tampered token is no identity
    const tampered = `${jwt.slice(0, -4)}AAAA`;
    expect((await api(server, 'GET', '/api/v1/nodes', { token: tampered })).status).toBe(401);
    // below kube's 10-minute minimum
    const short = await k(v, [
      'create',
      'token',
      'machine-config-daemon',
      '-n',
      McoNamespace,
      '--duration=1m',
    ]);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('may not specify a duration less than 10 minutes');
  });
});

describe('the API server /metrics', () => {
  it.skipIf(!existsSync(Promtool))(
    'passes promtool check metrics, and is for identities allowed to get /metrics only',
    async () => {
      const metrics = await api(server, 'GET', '/metrics', {
        token: server.token(),
        accept: 'text/plain',
      });
      expect(metrics.status).toBe(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const out = execFileSync(Promtool, ['check', 'metrics'], {
        input: metrics.body,
        encoding: 'utf8',
      });
      expect(out).toBe('');
      const denied = await api(server, 'GET', '/metrics', {
        token: server.token('mcs'),
        accept: 'text/plain',
      });
      expect(denied.status).toBe(403);
      expect(denied.json()['message']).toBe(
        'forbidden: User "system:serviceaccount:openshift-machine-config-operator:machine-config-server" cannot get path "/metrics"',
      );
    },
  );

  it('logs one line per request with verb, URI, status, latency and user', () => {
    const lines = server.stderr.split('\n').filter((l) => l.includes('"msg":"HTTP"'));
    expect(lines.length).toBeGreaterThan(50);
    expect(server.stderr).toMatch(
      /"verb":"PATCH","URI":"\/apis\/machineconfiguration\.openshift\.io\/v1\/machineconfigs\/70-owners-1-32\?fieldManager=mgr-b&fieldValidation=Strict&force=false","resp":409,"latency":"[\d.]+ms","user":"system:admin"/,
    );
  });
});
