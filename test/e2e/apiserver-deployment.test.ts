/**
 * apps/v1 Deployment, served from its descriptor alone (src/apiserver/kinds/apps-deployment.ts),
 * driven by the real kubectl 1.32 against `mco apiserver`: create, list, watch, the printer columns
 * kube prints, and strategic merge patch of the pod template's containers by name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  eventually,
  kubectl,
  kubectlProcess,
  startApiServer,
  type ApiServerProcess,
  type KubectlOptions,
  type KubectlResult,
} from './apiserver-harness.js';

let server: ApiServerProcess;
let work: string;
let caches = 0;

function options(): KubectlOptions {
  caches += 1;
  return { kubeconfig: server.kubeconfig('admin'), cacheDir: join(work, `cache-${caches}`) };
}

const k = (args: readonly string[]): Promise<KubectlResult> => kubectl(args, options());

function file(name: string, content: string): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

const deploymentYaml = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: ${name}
        image: nginx:1.25
        ports:
        - containerPort: 80
`;

/** The table kubectl printed, as rows of cells (AGE cells replaced by `<age>`). */
function rows(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map((cells) => cells.map((c) => (/^\d+(s|m\d*s?)$/.test(c) ? '<age>' : c)));
}

async function containers(name: string): Promise<unknown> {
  const out = await k([
    'get',
    'deploy',
    name,
    '-n',
    'default',
    '-o',
    'jsonpath={.spec.template.spec.containers}',
  ]);
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mco-deployment-e2e-'));
  server = await startApiServer();
});

afterAll(async () => {
  await server.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe('apps/v1 Deployment with kubectl 1.32', () => {
  it('is discovered as kube serves it', async () => {
    const result = await k(['api-resources', '--api-group', 'apps']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').map((l) => l.trim().split(/\s+/).join(' '))).toContain(
      'deployments deploy apps/v1 true Deployment',
    );
  });

  it('creates, defaults the spec as SetDefaults_Deployment does, and starts at generation 1', async () => {
    const created = await k(['create', '-f', file('web.yaml', deploymentYaml('web', 2))]);
    expect(created).toMatchObject({ code: 0, stdout: 'deployment.apps/web created\n' });
    const stored = await api(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/web', {
      token: server.token(),
    });
    expect(stored.status).toBe(200);
    const body = stored.json<{
      metadata: { generation: number };
      spec: unknown;
      status: unknown;
    }>();
    expect(body.metadata.generation).toBe(1);
    expect(body.spec).toMatchObject({
      replicas: 2,
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
      },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    expect(body.status).toEqual({});
  });

  it('refuses a deployment without a selector and stores nothing', async () => {
    const bad = await k([
      'create',
      '-f',
      file(
        'bad.yaml',
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad, namespace: default}\nspec:\n  template: {metadata: {labels: {app: b}}}\n',
      ),
    ]);
    expect(bad).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'The Deployment "bad" is invalid: spec.selector: Required value\n',
    });
    const gone = await k(['get', 'deploy', 'bad', '-n', 'default']);
    expect(gone.stderr).toBe('Error from server (NotFound): deployments.apps "bad" not found\n');
  });

  it('prints NAME READY UP-TO-DATE AVAILABLE AGE, and the wide columns, from spec and status', async () => {
    expect(rows((await k(['get', 'deployments', '-n', 'default'])).stdout)).toEqual([
      ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
      ['web', '0/2', '0', '0', '<age>'],
    ]);
    // no controller runs: the status is what a client writes through /status
    const status = await api(
      server,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/status',
      {
        token: server.token(),
        body: JSON.stringify({
          status: { replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1 },
        }),
        contentType: 'application/merge-patch+json',
      },
    );
    expect(status.status).toBe(200);
    expect(rows((await k(['get', 'deploy', 'web', '-n', 'default', '-o', 'wide'])).stdout)).toEqual(
      [
        ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'],
        ['web', '1/2', '2', '1', '<age>', 'web', 'nginx:1.25', 'app=web'],
      ],
    );
  });

  it('watches: -w prints the one event of a deployment created meanwhile', async () => {
    // kubectl lists first and watches from the list's resourceVersion: whatever is created after
    // the list (which the server logs once answered) comes as an event
    const lists = () =>
      server.stderr.split('"URI":"/apis/apps/v1/namespaces/default/deployments?').length;
    const before = lists();
    const watch = kubectlProcess(
      ['get', 'deploy', '-n', 'default', '-w', '--watch-only', '--output-watch-events'],
      options(),
    );
    try {
      await eventually('the list before the watch', () => lists() > before);
      const created = await k(['create', '-f', file('api.yaml', deploymentYaml('api', 3))]);
      expect(created.stdout).toBe('deployment.apps/api created\n');
      await eventually('the ADDED event', () => watch.output().stdout.includes('ADDED'));
    } finally {
      watch.kill();
    }
    expect(rows(watch.output().stdout)).toEqual([
      ['EVENT', 'NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
      ['ADDED', 'api', '0/3', '0', '0', '<age>'],
    ]);
  });

  it('lists both deployments', async () => {
    const list = await k(['get', 'deploy', '-n', 'default', '-o', 'name']);
    expect(list).toMatchObject({ code: 0, stdout: 'deployment.apps/api\ndeployment.apps/web\n' });
    const all = await k(['get', 'all', '-n', 'default', '-o', 'name']);
    expect(all.stdout).toContain('deployment.apps/web\n');
  });

  it('strategic merge patch merges spec.template.spec.containers by name', async () => {
    const patchWeb = (body: string) => k(['patch', 'deploy', 'web', '-n', 'default', '-p', body]);
    const added = await patchWeb(
      '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.36"}]}}}}',
    );
    expect(added).toMatchObject({ code: 0, stdout: 'deployment.apps/web patched\n' });
    expect(await containers('web')).toEqual([
      { name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }] },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
    const changed = await patchWeb(
      '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}',
    );
    expect(changed).toMatchObject({ code: 0, stdout: 'deployment.apps/web patched\n' });
    expect(await containers('web')).toEqual([
      { name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
    const generation = await k([
      'get',
      'deploy',
      'web',
      '-n',
      'default',
      '-o',
      'jsonpath={.metadata.generation}',
    ]);
    expect(generation.stdout).toBe('3');
    // a JSON merge patch has no merge keys: the list is replaced whole
    const merged = await k([
      'patch',
      'deploy',
      'web',
      '-n',
      'default',
      '--type',
      'merge',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}}',
    ]);
    expect(merged.code).toBe(0);
    expect(await containers('web')).toEqual([{ name: 'web', image: 'nginx:1.28' }]);
  });
});
