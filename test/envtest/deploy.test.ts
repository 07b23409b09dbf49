/**
 * deploy/ and the components against a real kube-apiserver (Node,RBAC authorization,
 * NodeRestriction, bootstrap tokens), envtest style: MCO_TEST_KUBE_APISERVER names the binary,
 * etcd is Debian's. Without the variable the suite is skipped and says so.
 *
 * The components run as local processes of the built `mco` (npm run build), each with a
 * kubeconfig holding its ServiceAccount's bound token from the TokenRequest API, in place of the
 * pods deploy/ describes: no kubelet runs here to start those.
 *
 * `MCO_ENVTEST_RECORD=1` rewrites the recorded `kubectl auth can-i --list` output in testdata/.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  credentialsFromKubeconfig,
  HttpsResourceClient,
} from '../../src/adapters/https-resource-client.js';
import { NodeKubeconfigClient } from '../../src/adapters/node-kubeconfig-client.js';
import { routeNodeWrites } from '../../src/adapters/node-writes-router.js';
import { createRootedNodeFiles } from '../../src/adapters/rooted-node-files.js';
import { isStatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import { freePort } from '../../src/adapters/etcd-cluster-process.js';
import { Annotation, McoNamespace } from '../../src/api/machineconfiguration/v1/constants.js';
import { loadManifests } from '../../src/shell/load-manifests.js';
import { NoMachineApiNotice } from '../../src/logic/operator/user-data-secret.js';
import { TestPki } from '../support/kube-apiserver-pki.js';
import { KubeApiserverEnv, TestKubeApiServer } from '../support/kube-apiserver.js';
import { McoBin, McoProcess, RepoRoot } from '../support/mco-processes.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { until } from '../support/until.js';
import { joinThroughCsr } from './csr-join.js';
import { grantedRows, parseCanIList, rowLines } from './granted-rules.js';

const binary = process.env[KubeApiserverEnv] ?? '';
const record = process.env['MCO_ENVTEST_RECORD'] === '1';
const DeployDir = fileURLToPath(new URL('../../deploy', import.meta.url));
const TestData = fileURLToPath(new URL('testdata', import.meta.url));
const DaemonSa = `system:serviceaccount:${McoNamespace}:machine-config-daemon`;

if (binary === '')
  console.log(
    `test/envtest skipped: set ${KubeApiserverEnv} to a kube-apiserver binary (v1.26) to run deploy/ and the components against a real API server`,
  );
const suite = binary === '' ? describe.skip : describe;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface IgnitionFiles {
  storage?: { files?: { path: string; contents?: { source?: string } }[] };
}

interface RenderedMc {
  metadata: { annotations?: Record<string, string> };
  spec: { osImageURL?: string; config?: { storage?: { files?: { path: string }[] } } };
}

/** The built `mco` with these arguments; its stdout, or a failure with its stderr. */
function runMcoOk(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [McoBin, ...args],
      { timeout: 240_000, maxBuffer: 64 << 20, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(new Error(`mco ${args.slice(0, 2).join(' ')}: ${error.message}\n${stderr}`));
      },
    );
  });
}

/** A kubelet's client-certificate kubeconfig, everything inline. */
function kubeletKubeconfig(server: string, caPem: string, certPem: string, keyPem: string): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority-data': b64(caPem) } }],
    users: [
      {
        name: 'kubelet',
        user: { 'client-certificate-data': b64(certPem), 'client-key-data': b64(keyPem) },
      },
    ],
    contexts: [{ name: 'kubelet', context: { cluster: 'local', user: 'kubelet' } }],
    'current-context': 'kubelet',
  });
}

/** GET over HTTPS trusting `ca`: the status and the body. */
function httpsGet(
  url: string,
  ca: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A file's text from an Ignition config's data URL. */
function servedFile(config: IgnitionFiles, path: string): string {
  const source = config.storage?.files?.find((f) => f.path === path)?.contents?.source ?? '';
  const comma = source.indexOf(',');
  return source.slice(0, comma).endsWith(';base64')
    ? Buffer.from(source.slice(comma + 1), 'base64').toString()
    : decodeURIComponent(source.slice(comma + 1));
}

suite('deploy/ on a real kube-apiserver', () => {
  let kas: TestKubeApiServer;
  let tmp: TmpDir;
  const processes: McoProcess[] = [];
  /** What the components' test leaves for the node's: the MCS and the bootstrap identity. */
  let running: { readonly mcsUrl: string; readonly mcsCa: string } | undefined;
  const nodeDirs: string[] = [];

  const getJson = async <T>(args: readonly string[]): Promise<T> =>
    JSON.parse(await kas.kubectlOk([...args, '-o', 'json'])) as T;

  /** Every line a component logged with `forbidden` in it (prefixed with its name). */
  const forbiddenLines = (...only: McoProcess[]): string[] =>
    (only.length > 0 ? only : processes).flatMap((p) =>
      p
        .output()
        .split('\n')
        .filter((l) => /forbidden/i.test(l))
        .map((l) => `${p.name}: ${l}`),
    );

  /** A kubeconfig with `sa`'s bound token; the CA inline or as a file path. */
  const saKubeconfig = async (sa: string, inlineCa: boolean): Promise<string> =>
    kas.tokenKubeconfig(sa, await kas.serviceAccountToken(McoNamespace, sa), { inlineCa });

  beforeAll(async () => {
    kas = await TestKubeApiServer.start({ binary });
    tmp = makeTmpDir('mco-envtest-run-');
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    // OSTree deployments are immutable (chattr +i): `mco node delete` takes them apart.
    for (const dir of nodeDirs) await runMcoOk(['node', 'delete', '--dir', dir]).catch(() => '');
    await (kas as TestKubeApiServer | undefined)?.dispose();
    (tmp as TmpDir | undefined)?.remove();
  }, 60_000);

  it('kubectl apply -R -f deploy/ creates every object on a fresh cluster, and again changes nothing', async () => {
    const objects = loadManifests([DeployDir]);
    const first = await kas.kubectl(['apply', '-R', '-f', DeployDir]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(objects.length);
    for (const line of lines) expect(line).toMatch(/ created$/);
    await kas.kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
    const again = await kas.kubectl(['apply', '-R', '-f', DeployDir]);
    expect(again.code).toBe(0);
    for (const line of again.stdout.trim().split('\n')) expect(line).toMatch(/ unchanged$/);
  });

  it.each([McoNamespace, 'default'])(
    'kubectl auth can-i --list as machine-config-daemon (namespace %s) shows what deploy/ grants',
    async (namespace) => {
      const out = await kas.kubectlOk([
        'auth',
        'can-i',
        '--list',
        `--as=${DaemonSa}`,
        '-n',
        namespace,
      ]);
      const expected = grantedRows(
        loadManifests([DeployDir]),
        { namespace: McoNamespace, name: 'machine-config-daemon' },
        namespace,
      );
      expect(rowLines(parseCanIList(out))).toEqual(rowLines(expected));
      // The real server's words, for the embedded server's RBAC to be compared with.
      const file = join(TestData, `can-i-list-machine-config-daemon-${namespace}.txt`);
      if (record) writeFileSync(file, out);
      expect(out).toBe(readFileSync(file, 'utf8'));
    },
  );

  it('node-bootstrapper may create and read CSRs, and nothing of the cluster', async () => {
    const kubeconfig = await saKubeconfig('node-bootstrapper', true);
    const can = async (...args: string[]): Promise<string> =>
      (await kas.kubectl(['auth', 'can-i', ...args], { kubeconfig })).stdout.trim();
    expect(await can('create', 'certificatesigningrequests')).toBe('yes');
    expect(await can('watch', 'certificatesigningrequests')).toBe('yes');
    expect(await can('list', 'nodes')).toBe('no');
    expect(await can('get', 'machineconfigs')).toBe('no');
    expect(await can('get', 'secrets', '-n', McoNamespace)).toBe('no');
  });

  it('operator, controller, server and dashboard run as their ServiceAccounts: Available, not Degraded, no forbidden', async () => {
    const mcsPki = await TestPki.create();
    const mcsCa = tmp.write('mcs/ca.crt', mcsPki.caPem);
    const serving = await mcsPki.serving('machine-config-server');
    const cert = tmp.write('mcs/tls.crt', serving.certPem);
    const key = tmp.write('mcs/tls.key', serving.keyPem);
    // What the token controller would put in node-bootstrapper-token on a cluster with a
    // kube-controller-manager.
    tmp.write(
      'bootstrap-token/token',
      await kas.serviceAccountToken(McoNamespace, 'node-bootstrapper'),
    );
    tmp.write('bootstrap-token/ca.crt', readFileSync(kas.caFile, 'utf8'));
    const [securePort, insecurePort] = [await freePort(), await freePort()];
    const mcsUrl = `https://127.0.0.1:${String(securePort)}`;
    const dashboardPort = await freePort();

    processes.push(
      new McoProcess('operator', [
        'operator',
        '--kubeconfig',
        // the CA by file path: the operator must hand it to nodes all the same
        await saKubeconfig('machine-config-operator', false),
        '--leader-elect',
        '--mcs-url',
        mcsUrl,
        '--mcs-ca-file',
        mcsCa,
        '--poll-interval',
        '1s',
      ]),
      new McoProcess('controller', [
        'controller',
        '--kubeconfig',
        await saKubeconfig('machine-config-controller', true),
        '--leader-elect',
      ]),
      new McoProcess('dashboard', [
        'dashboard',
        '--kubeconfig',
        await saKubeconfig('machine-config-dashboard', true),
        '--listen',
        `127.0.0.1:${String(dashboardPort)}`,
      ]),
      new McoProcess('server', [
        'server',
        '--kubeconfig',
        await saKubeconfig('machine-config-server', true),
        '--cert',
        cert,
        '--key',
        key,
        '--apiserver-url',
        kas.url,
        '--bootstrap-token-dir',
        join(tmp.path, 'bootstrap-token'),
        '--address',
        '127.0.0.1',
        '--secure-port',
        String(securePort),
        '--insecure-port',
        String(insecurePort),
      ]),
    );

    const co = await until(
      'ClusterOperator machine-config Available and not Degraded',
      async () => {
        const c = await getJson<{
          status?: { conditions?: Condition[]; extension?: Record<string, string> };
        }>(['get', 'clusteroperator', 'machine-config']);
        const cond = (t: string) => c.status?.conditions?.find((x) => x.type === t);
        if (cond('Available')?.status !== 'True' || cond('Degraded')?.status !== 'False')
          throw new Error(JSON.stringify(c.status?.conditions));
        return c;
      },
      { timeoutMs: 180_000, intervalMs: 1000 },
    ).catch((e: unknown) => {
      // a missing grant shows as a wait that never ends: name the refusals
      throw new Error(`${String(e)}\nforbidden:\n${forbiddenLines().join('\n')}`, { cause: e });
    });
    expect(co.status?.extension?.[NoMachineApiNotice.key]).toBe(NoMachineApiNotice.message);
    expect(co.status?.extension?.['master']).toMatch(
      /^all 0 nodes are at latest configuration rendered-master-/,
    );

    // The ControllerConfig carries the API server's CA, read from the operator's kubeconfig file.
    const cc = await getJson<{ spec: { kubeAPIServerServingCAData?: string } }>([
      'get',
      'controllerconfig',
      'machine-config-controller',
    ]);
    expect(Buffer.from(cc.spec.kubeAPIServerServingCAData ?? '', 'base64').toString()).toBe(
      readFileSync(kas.caFile, 'utf8'),
    );

    // Both leaders hold their Leases.
    const leases = await getJson<{
      items: { metadata: { name: string }; spec: { holderIdentity?: string } }[];
    }>(['get', 'lease', '-n', McoNamespace]);
    expect(
      leases.items
        .filter((l) => (l.spec.holderIdentity ?? '') !== '')
        .map((l) => l.metadata.name)
        .sort(),
    ).toEqual(['machine-config', 'machine-config-controller']);

    // The server serves the worker config with a kubeconfig for node-bootstrapper, which the real
    // server authenticates and lets create CSRs only.
    const served = await until(
      'the worker config from the machine config server',
      async () => {
        // over TLS, as Ignition fetches it: the plain HTTP port serves /healthz only
        const r = await httpsGet(`${mcsUrl}/config/worker`, mcsPki.caPem, {
          accept: 'application/vnd.coreos.ignition+json;version=3.4.0',
        });
        return r.status === 200 ? (JSON.parse(r.body) as IgnitionFiles) : undefined;
      },
      60_000,
    );
    const nodeKubeconfig = tmp.write(
      'served.kubeconfig',
      servedFile(served, '/etc/kubernetes/kubeconfig'),
    );
    const whoCan = await kas.kubectl(['auth', 'can-i', 'create', 'certificatesigningrequests'], {
      kubeconfig: nodeKubeconfig,
    });
    expect(whoCan.stdout.trim()).toBe('yes');

    // The dashboard's watches all listed, as machine-config-dashboard.
    await until(
      'the dashboard healthy',
      async () =>
        (await fetch(`http://127.0.0.1:${String(dashboardPort)}/healthz`)).ok || undefined,
      60_000,
    );

    // A Node appears: the operator gives it a MachineConfigNode, the controller counts it.
    await kas.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'worker-0', labels: { 'node-role.kubernetes.io/worker': '' } },
      }),
    });
    await until(
      'MachineConfigNode worker-0',
      async () =>
        (await kas.kubectl(['get', 'machineconfignode', 'worker-0'])).code === 0 || undefined,
      60_000,
    );
    await until(
      'the worker pool to count worker-0',
      async () => {
        const p = await getJson<{ status?: { machineCount?: number } }>(['get', 'mcp', 'worker']);
        return p.status?.machineCount === 1 || undefined;
      },
      60_000,
    );
    const after = await getJson<{ status?: { conditions?: Condition[] } }>([
      'get',
      'clusteroperator',
      'machine-config',
    ]);
    expect(after.status?.conditions?.find((c) => c.type === 'Degraded')?.status).toBe('False');

    for (const p of processes) {
      expect(p.running, `${p.name} exited:\n${p.output()}`).toBe(true);
      expect(forbiddenLines(p), `${p.name} logged forbidden errors`).toEqual([]);
    }
    running = { mcsUrl, mcsCa };
  }, 300_000);

  it('the daemon reads as machine-config-daemon and writes its Node as the node (kubelet kubeconfig on the node, re-read on rotation)', async () => {
    for (const name of ['worker-1', 'worker-2'])
      await kas.kubectlOk(['create', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }),
      });
    // The node's root as the kubelet leaves it: its kubeconfig names files on the node.
    const root = join(tmp.path, 'node-root');
    const writeNodeCert = async (node: string): Promise<void> => {
      const c = await kas.clientCertificate(`system:node:${node}`, ['system:nodes']);
      tmp.write('node-root/var/lib/kubelet/pki/kubelet-client-current.pem', c.certPem + c.keyPem);
    };
    await writeNodeCert('worker-1');
    tmp.write('node-root/etc/kubernetes/kubelet-ca.crt', kas.caPem);
    tmp.write(
      'node-root/var/lib/kubelet/kubeconfig',
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'local',
            cluster: { server: kas.url, 'certificate-authority': '/etc/kubernetes/kubelet-ca.crt' },
          },
        ],
        users: [
          {
            name: 'kubelet',
            user: {
              'client-certificate': '/var/lib/kubelet/pki/kubelet-client-current.pem',
              'client-key': '/var/lib/kubelet/pki/kubelet-client-current.pem',
            },
          },
        ],
        contexts: [{ name: 'kubelet', context: { cluster: 'local', user: 'kubelet' } }],
        'current-context': 'kubelet',
      }),
    );
    const sa = new HttpsResourceClient(
      credentialsFromKubeconfig(await saKubeconfig('machine-config-daemon', false)),
    );
    const node = new NodeKubeconfigClient(
      createRootedNodeFiles({ root }),
      '/var/lib/kubelet/kubeconfig',
    );
    const client = routeNodeWrites(sa, node);
    const annotate = (name: string, value: string) =>
      client.patch(
        Resources.node,
        name,
        { metadata: { annotations: { [Annotation.state]: value } } },
        'merge',
      );
    const forbidden = async (p: Promise<unknown>): Promise<string> => {
      try {
        await p;
      } catch (e) {
        if (isStatusError(e, 'Forbidden')) return e.message;
        throw e;
      }
      throw new Error('expected 403 Forbidden');
    };
    try {
      expect((await client.list(Resources.node)).items.length).toBeGreaterThan(0);
      expect((await client.list(Resources.machineConfig)).items.length).toBeGreaterThan(0);
      // adoption reads the pools to find the node's one
      expect(
        (await client.list(Resources.machineConfigPool)).items.map((p) => p.metadata.name),
      ).toContain('worker');
      await annotate('worker-1', 'Done');
      const seen = await getJson<{ metadata: { annotations?: Record<string, string> } }>([
        'get',
        'node',
        'worker-1',
      ]);
      expect(seen.metadata.annotations?.[Annotation.state]).toBe('Done');
      expect(await forbidden(annotate('worker-2', 'Done'))).toBe(
        'nodes "worker-2" is forbidden: node "worker-1" is not allowed to modify node "worker-2"',
      );
      expect(
        await forbidden(
          client.patch(
            Resources.node,
            'worker-1',
            { metadata: { labels: { 'node-role.kubernetes.io/master': '' } } },
            'merge',
          ),
        ),
      ).toBe(
        'nodes "worker-1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/master',
      );
      // The ServiceAccount alone may not write Nodes at all.
      expect(
        await forbidden(
          sa.patch(Resources.node, 'worker-1', { metadata: { annotations: { x: 'y' } } }, 'merge'),
        ),
      ).toMatch(
        /User "system:serviceaccount:openshift-machine-config-operator:machine-config-daemon" cannot patch resource "nodes"/,
      );
      // Events as the node (the Node authorizer's static rules).
      await node.create(Resources.event, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'worker-1.envtest', namespace: 'default' },
        involvedObject: { kind: 'Node', name: 'worker-1' },
        reason: 'Envtest',
        message: 'written as the node',
        type: 'Normal',
      });
      // The kubelet rotates its certificate in place: the next write uses the new one.
      await writeNodeCert('worker-2');
      await annotate('worker-2', 'Working');
      expect(await forbidden(annotate('worker-1', 'Working'))).toContain(
        'node "worker-2" is not allowed to modify node "worker-1"',
      );
    } finally {
      sa.close();
      node.close();
    }
  });
  it('a simulated node joins through a CSR; its daemon reads as machine-config-daemon, writes its Node as the node, and a MachineConfig rolls out to it', async () => {
    if (running === undefined) throw new Error('the components did not start (the test before)');
    const name = 'worker-3';
    const bootRef = 'testos/x86_64/stable';
    const repo = join(tmp.path, 'boot-repo');
    const osImage = `ostree-local:${repo}#${bootRef}`;
    await runMcoOk([
      'node',
      'build-boot-image',
      '--rootfs',
      join(RepoRoot, 'images/rootfs/testos'),
      '--modes',
      join(RepoRoot, 'images/rootfs/testos.modes.json'),
      '--repo',
      repo,
      '--ref',
      bootRef,
      '--os-version',
      '1',
    ]);
    // The node the components' test made has no daemon: gone, so the pool's budget is free.
    await kas.kubectlOk(['delete', 'node', 'worker-0']);
    // The release's OS image is the one the node boots (deploy/ leaves OS_IMAGE to fill in).
    await kas.kubectlOk([
      'patch',
      'configmap',
      'machine-config-osimageurl',
      '-n',
      McoNamespace,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ data: { baseOSContainerImage: osImage } }),
    ]);
    // The MCS serves a pool's status configuration (upstream's): wait until it is the target too.
    const renderedWith = async (pred: (mc: RenderedMc) => boolean): Promise<string> => {
      const pool = await getJson<{
        spec?: { configuration?: { name?: string } };
        status?: { configuration?: { name?: string } };
      }>(['get', 'mcp', 'worker']);
      const rendered = pool.spec?.configuration?.name ?? '';
      if (rendered === '') throw new Error('the worker pool has no rendered config');
      if (pool.status?.configuration?.name !== rendered)
        throw new Error(`the worker pool is not at ${rendered} yet`);
      const mc = await getJson<RenderedMc>(['get', 'mc', rendered]);
      if (!pred(mc)) throw new Error(`${rendered} is not the one asked for yet`);
      return rendered;
    };
    const first = await until(
      'a rendered worker config with the boot image',
      () => renderedWith((mc) => mc.spec.osImageURL === osImage),
      { timeoutMs: 180_000, intervalMs: 1000 },
    );

    const pointer = tmp.write(
      'worker.ign',
      await runMcoOk([
        'pointer-config',
        '--pool',
        'worker',
        '--url',
        running.mcsUrl,
        '--ca',
        running.mcsCa,
        '--spec-version',
        '3.3.0',
      ]),
    );
    // The role label is the administrator's (NodeRestriction refuses it from a kubelet).
    await kas.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: { 'node-role.kubernetes.io/worker': '' } },
      }),
    });
    const nodeDir = join(tmp.path, name);
    nodeDirs.push(nodeDir);
    const hostKubeconfig = join(tmp.path, `${name}.kubeconfig`);
    const daemonKubeconfig = await saKubeconfig('machine-config-daemon', false);
    // TLS bootstrapping with the kubeconfig the MCS serves (the node's /etc/kubernetes/kubeconfig),
    // before the node is created: `mco node create` takes the identity it is given.
    const joined = await joinThroughCsr(kas, join(tmp.path, 'served.kubeconfig'), name);
    expect(joined.requestedBy).toBe(`system:serviceaccount:${McoNamespace}:node-bootstrapper`);
    writeFileSync(
      hostKubeconfig,
      kubeletKubeconfig(kas.url, kas.caPem, joined.certPem, joined.keyPem),
      { mode: 0o600 },
    );
    await runMcoOk([
      'node',
      'create',
      '--dir',
      nodeDir,
      '--name',
      name,
      '--boot-repo',
      repo,
      '--ref',
      bootRef,
      '--boot-image',
      osImage,
      '--node-kubeconfig',
      hostKubeconfig,
      '--pointer-config',
      pointer,
      '--pods',
      '0',
      '--daemon-command',
      JSON.stringify([
        process.execPath,
        McoBin,
        'daemon',
        '--node',
        '{name}',
        '--root',
        '{root}',
        '--kubeconfig',
        daemonKubeconfig,
        '--node-kubeconfig',
        '/var/lib/kubelet/kubeconfig',
        '--host',
        'ostree',
      ]),
      '--firstboot-command',
      JSON.stringify([
        process.execPath,
        McoBin,
        'daemon',
        '--node',
        '{name}',
        '--root',
        '{root}',
        '--host',
        'ostree',
        '--once-from',
        '{root}/etc/ignition-machine-config-encapsulated.json',
      ]),
    ]);
    const files = createRootedNodeFiles({ root: join(nodeDir, 'rootfs') });
    const onNode = async (path: string): Promise<string | undefined> => {
      const b = await files.read(path);
      return b === undefined ? undefined : Buffer.from(b).toString('utf8');
    };

    expect(await onNode('/etc/kubernetes/kubeconfig')).toBe(
      readFileSync(join(tmp.path, 'served.kubeconfig'), 'utf8'),
    );
    const put = (path: string, text: string, mode: number) =>
      files.writeAtomic(path, Buffer.from(text), { mode });
    await put(
      '/var/lib/kubelet/pki/kubelet-client-current.pem',
      joined.certPem + joined.keyPem,
      0o600,
    );
    await put('/var/lib/kubelet/ca.crt', kas.caPem, 0o644);
    await put(
      '/var/lib/kubelet/kubeconfig',
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'local', cluster: { server: kas.url, 'certificate-authority': 'ca.crt' } },
        ],
        users: [
          {
            name: 'kubelet',
            user: {
              'client-certificate': 'pki/kubelet-client-current.pem',
              'client-key': 'pki/kubelet-client-current.pem',
            },
          },
        ],
        contexts: [{ name: 'kubelet', context: { cluster: 'local', user: 'kubelet' } }],
        'current-context': 'kubelet',
      }),
      0o600,
    );
    const nodeRun = new McoProcess('node', [
      'node',
      'run',
      '--dir',
      nodeDir,
      '--heartbeat-seconds',
      '2',
    ]);
    processes.push(nodeRun);
    const nodeLog = (file: string) => {
      try {
        return readFileSync(join(nodeDir, file), 'utf8');
      } catch {
        return '';
      }
    };
    const nodeAt = (config: string) =>
      until(
        `${name} Done at ${config}`,
        async () => {
          // give up at once: the supervisor would retry a failed first boot every minute
          if (nodeRun.output().includes('the firstboot step failed')) return 'firstboot failed';
          const n = await getJson<{ metadata: { annotations?: Record<string, string> } }>([
            'get',
            'node',
            name,
          ]);
          const a = n.metadata.annotations ?? {};
          if (a[Annotation.state] === 'Degraded')
            throw new Error(`Degraded: ${a[Annotation.reason] ?? ''}`);
          return a[Annotation.currentConfig] === config && a[Annotation.state] === 'Done'
            ? 'Done'
            : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 1000 },
      )
        .then((outcome) => {
          if (outcome !== 'Done') throw new Error(outcome);
        })
        .catch((e: unknown) => {
          throw new Error(
            `${String(e)}\nnode:\n${nodeRun.output().slice(-4000)}\nfirstboot:\n${nodeLog('firstboot.log').slice(-4000)}\ndaemon:\n${nodeLog('daemon.log').slice(-4000)}\nforbidden:\n${forbiddenLines().join('\n')}`,
            { cause: e },
          );
        });
    await nodeAt(first);

    // An example MachineConfig: a file on the worker pool's nodes.
    const content = 'rolled out on a real kube-apiserver\n';
    await kas.kubectlOk(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfig',
        metadata: {
          name: '99-worker-envtest',
          labels: { 'machineconfiguration.openshift.io/role': 'worker' },
        },
        spec: {
          config: {
            ignition: { version: '3.2.0' },
            storage: {
              files: [
                {
                  path: '/etc/envtest-rollout',
                  mode: 0o644,
                  contents: { source: `data:,${encodeURIComponent(content)}` },
                },
              ],
            },
          },
        },
      }),
    });
    const second = await until(
      'a rendered worker config with 99-worker-envtest',
      () =>
        renderedWith((mc) =>
          (mc.spec.config?.storage?.files ?? []).some((f) => f.path === '/etc/envtest-rollout'),
        ),
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    expect(second).not.toBe(first);
    await nodeAt(second);
    expect(await onNode('/etc/envtest-rollout')).toBe(content);
    await until(
      'the worker pool Updated with one machine',
      async () => {
        const p = await getJson<{
          status?: {
            machineCount?: number;
            updatedMachineCount?: number;
            conditions?: Condition[];
          };
        }>(['get', 'mcp', 'worker']);
        const updated = p.status?.conditions?.find((c) => c.type === 'Updated')?.status === 'True';
        return updated && p.status?.machineCount === 1 && p.status.updatedMachineCount === 1
          ? p
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );

    expect(nodeRun.running, `node run exited:\n${nodeRun.output()}`).toBe(true);
    expect(nodeLog('daemon.log'), 'the daemon wrote no log').not.toBe('');
    expect(forbiddenLines(), 'components logged forbidden errors').toEqual([]);
    expect(
      nodeLog('daemon.log')
        .split('\n')
        .filter((l) => /forbidden/i.test(l)),
      'the daemon logged forbidden errors',
    ).toEqual([]);
  }, 900_000);
});
