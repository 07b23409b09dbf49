import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClient } from '../../test/support/fake-client.js';
import { makeTmpDir } from '../../test/support/tmp-dir.js';
import { buildLogsFolder } from '../adapters/build-logs-folder.js';
import type { MachineOSBuild } from '../api/machineconfiguration/v1/machine-os-build.js';
import type { MachineOSConfig } from '../api/machineconfiguration/v1/machine-os-config.js';
import { StatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { silentLogger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { UserApiAccess } from '../ports/user-api-access.js';
import { BuildLogLimit } from './build-routes.js';
import type { BuildsView } from './build-view.js';
import { createDashboardApp } from './create-dashboard-app.js';
import { buildSnapshot, type SnapshotInputs } from './dashboard-snapshot.js';

const Registry = '127.0.0.1:5000';
const Failed = 'worker-11111111111111111111111111111111';
const Built = 'worker-22222222222222222222222222222222';
const Digest = `sha256:${'a'.repeat(64)}`;

function conditions(phase: string) {
  return ['Prepared', 'Building', 'Failed', 'Interrupted', 'Succeeded'].map((type) => ({
    type,
    status: type === phase ? ('True' as const) : ('False' as const),
    reason: type === 'Succeeded' ? 'Ready' : type,
    message: type,
    lastTransitionTime: '2026-01-01T00:00:00Z',
  }));
}

function build(name: string, created: string, phase: string, image?: string): MachineOSBuild {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineOSBuild',
    metadata: {
      name,
      creationTimestamp: created,
      labels: { 'machineconfiguration.openshift.io/target-machine-config-pool': 'worker' },
    },
    spec: {
      machineConfig: { name: 'rendered-worker-abc' },
      machineOSConfig: { name: 'worker' },
      renderedImagePushSpec: `${Registry}/layered:${name}`,
    },
    status: {
      conditions: conditions(phase),
      buildStart: created,
      ...(image === undefined ? {} : { digestedImagePushSpec: image, buildEnd: created }),
    },
  };
}

const mosc: MachineOSConfig = {
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineOSConfig',
  metadata: {
    name: 'worker',
    annotations: { 'machineconfiguration.openshift.io/current-machine-os-build': Built },
  },
  spec: {
    machineConfigPool: { name: 'worker' },
    imageBuilder: { imageBuilderType: 'Job' },
    renderedImagePushSecret: { name: 'push' },
    renderedImagePushSpec: `${Registry}/layered:latest`,
    containerFile: [
      { containerfileArch: 'ARM64', content: 'FROM configs AS final\nRUN arm' },
      { containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN true' },
    ],
  },
  status: { currentImagePullSpec: `${Registry}/layered@${Digest}` },
};

/** `admin` reads everything the FakeClient holds; `reader` is refused builds, as RBAC would. */
class TokenAccess implements UserApiAccess {
  readonly tokens: (string | undefined)[] = [];
  readonly admin = new FakeClient();

  client(token: string | undefined): ResourceClient {
    this.tokens.push(token);
    if (token !== 'reader') return this.admin;
    const forbidden = (verb: string) =>
      Promise.reject(
        StatusError.forbidden(
          { group: 'machineconfiguration.openshift.io', resource: 'machineosbuilds' },
          '',
          `User "reader" cannot ${verb} resource "machineosbuilds" in API group "machineconfiguration.openshift.io" at the cluster scope`,
        ),
      );
    const reader: Partial<ResourceClient> = {
      get: () => forbidden('get'),
      list: (ref) => (ref.plural === 'machineosbuilds' ? forbidden('list') : this.admin.list(ref)),
    };
    return reader as ResourceClient;
  }
  podLog(): never {
    throw new Error('not asked for here');
  }
}

const work = makeTmpDir('mco-build-routes-');
afterAll(() => {
  work.remove();
});

function setup(logsDir?: string) {
  const inputs: SnapshotInputs = {
    pools: [],
    nodes: [],
    machineConfigNodes: [],
    machineConfigs: [],
    events: [],
  };
  const access = new TokenAccess();
  access.admin.seed(Resources.machineOSConfig, mosc);
  access.admin.seed(
    Resources.machineOSBuild,
    build(Built, '2026-01-01T00:05:00Z', 'Succeeded', `${Registry}/layered@${Digest}`),
  );
  access.admin.seed(Resources.machineOSBuild, build(Failed, '2026-01-01T00:01:00Z', 'Failed'));
  const app = createDashboardApp({
    source: {
      snapshot: () => buildSnapshot(inputs),
      inputs: () => inputs,
      machineConfig: () => undefined,
      machineConfiguration: () => Promise.resolve({ kind: 'absent' }),
      subscribe: () => () => undefined,
      hasSynced: () => true,
    },
    assets: { read: () => Promise.resolve(undefined) },
    log: silentLogger,
    access,
    ...(logsDir === undefined ? {} : { buildLogs: buildLogsFolder(logsDir) }),
  });
  const get = (path: string, token?: string) =>
    app.request(path, {
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    });
  return { access, get };
}

describe('the dashboard’s builds', () => {
  it('lists each MachineOSConfig and its builds, newest first, with phase, image and conditions', async () => {
    const { access, get } = setup();
    const res = await get('/api/builds', 'admin');
    expect(res.status).toBe(200);
    const view = (await res.json()) as BuildsView;
    expect(access.tokens).toEqual(['admin']);
    expect(view.notes).toEqual([]);
    expect(view.configs).toEqual([
      {
        name: 'worker',
        pool: 'worker',
        pushSpec: `${Registry}/layered:latest`,
        currentImage: `${Registry}/layered@${Digest}`,
        currentBuild: Built,
        containerfile: 'FROM configs AS final\nRUN true',
      },
    ]);
    expect(view.builds.map((b) => [b.name, b.phase, b.image, b.current])).toEqual([
      [Built, 'Succeeded', `${Registry}/layered@${Digest}`, true],
      [Failed, 'Failed', '', false],
    ]);
    expect(view.builds[1]).toMatchObject({
      pool: 'worker',
      machineOSConfig: 'worker',
      renderedConfig: 'rendered-worker-abc',
      pushSpec: `${Registry}/layered:${Failed}`,
      buildStart: '2026-01-01T00:01:00Z',
      buildEnd: '',
    });
    expect(view.builds[1]?.conditions.find((c) => c.status === 'True')).toMatchObject({
      type: 'Failed',
      reason: 'Failed',
    });
  });

  it('says which list the caller may not read, and shows the rest', async () => {
    const { get } = setup();
    const view = (await (await get('/api/builds', 'reader')).json()) as BuildsView;
    expect(view.configs.map((c) => c.name)).toEqual(['worker']);
    expect(view.builds).toEqual([]);
    expect(view.notes).toEqual([
      'MachineOSBuilds: machineosbuilds.machineconfiguration.openshift.io is forbidden: User "reader" cannot list resource "machineosbuilds" in API group "machineconfiguration.openshift.io" at the cluster scope',
    ]);
  });

  it('serves a build log once the API server has answered the build to the caller', async () => {
    const dir = join(work.path, 'logs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${Failed}.log`), 'STEP 1/2: FROM …\nabout to fail\nbuild failed\n');
    const { access, get } = setup(dir);
    const res = await get(`/api/builds/${Failed}/log`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-log-truncated')).toBe('false');
    expect(await res.text()).toBe('STEP 1/2: FROM …\nabout to fail\nbuild failed\n');
    // Without a token the read is the dashboard's own.
    expect(access.tokens).toEqual([undefined]);

    const refused = await get(`/api/builds/${Failed}/log`, 'reader');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toContain(
      'User "reader" cannot get resource "machineosbuilds"',
    );
    // A log file without its MachineOSBuild is not served.
    writeFileSync(join(dir, 'worker-gone.log'), 'secret\n');
    const gone = await get('/api/builds/worker-gone/log');
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: string }).error).toBe(
      'machineosbuilds.machineconfiguration.openshift.io "worker-gone" not found',
    );
    // A build with no log yet.
    const none = await get(`/api/builds/${Built}/log`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: string }).error).toBe('no log for this build (yet)');
  });

  it('refuses names that are not build names before asking anyone', async () => {
    const { access, get } = setup(work.path);
    // `..` and `%2E%2E` never get here: the URL is normalised before routing.
    for (const name of ['a%2F..%2F..%2Fetc%2Fpasswd', 'Worker', 'a..b', '-x'])
      expect((await get(`/api/builds/${name}/log`)).status, name).toBe(400);
    expect(access.tokens).toEqual([]);
    expect((await get('/api/builds/x/log', 'bad token with spaces')).status).toBe(400);
  });

  it('without a logs folder, says where the log is', async () => {
    const { get } = setup();
    const res = await get(`/api/builds/${Failed}/log`);
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error: string }).error).toContain(
      'mco logs machineosbuild/NAME',
    );
  });

  it('shows the end of a long log from a line start, and follows no symlink', async () => {
    const dir = join(work.path, 'long');
    mkdirSync(dir, { recursive: true });
    const line = `${'x'.repeat(99)}\n`;
    const lines = Math.ceil((BuildLogLimit * 2) / line.length);
    writeFileSync(
      join(dir, `${Failed}.log`),
      `${line.repeat(lines)}pushed ${Registry}/layered as ${Digest}\n`,
    );
    symlinkSync(join(dir, `${Failed}.log`), join(dir, `${Built}.log`));
    const { get } = setup(dir);
    const res = await get(`/api/builds/${Failed}/log`);
    expect(res.headers.get('x-log-truncated')).toBe('true');
    const text = await res.text();
    expect(text.length).toBeLessThanOrEqual(BuildLogLimit);
    expect(text.startsWith(line)).toBe(true);
    expect(text.endsWith(`pushed ${Registry}/layered as ${Digest}\n`)).toBe(true);
    const linked = await get(`/api/builds/${Built}/log`);
    expect(linked.status).toBe(404);
    expect(((await linked.json()) as { error: string }).error).toBe(
      'the log cannot be read (ELOOP)',
    );
  });
});
