/**
 * `mco get` against a real `mco apiserver`: `-o json|yaml|name|jsonpath` print the same bytes as
 * kubectl 1.33 for the same request (a list, one name, several names, a label selector), not-found
 * names read as kubectl's errors with exit 1, the tables show pool, state and configs, and
 * `$KUBECONFIG` lists and `--context` choose the cluster as kubectl does.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServerProcess, type ApiServerHandle } from '../support/apiserver-process.js';
import { McoBin } from '../support/run-mco.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';

const kubectlBin = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

let server: ApiServerHandle;
let dir: TmpDir;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(bin: string, args: readonly string[], env: Record<string, string>): Run {
  const argv = bin === 'mco' ? [McoBin, ...args] : args;
  const r = spawnSync(bin === 'mco' ? process.execPath : bin, argv, {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const mco = (args: readonly string[], env: Record<string, string> = {}): Run =>
  run('mco', args, { KUBECONFIG: server.kubeconfigPath, ...env });
const kubectl = (args: readonly string[]): Run =>
  run(kubectlBin, ['--cache-dir', `${dir.path}/cache`, ...args], {
    KUBECONFIG: server.kubeconfigPath,
  });

const Objects = `apiVersion: v1
kind: Node
metadata:
  name: worker-0
  labels: {node-role.kubernetes.io/worker: ""}
  annotations:
    machineconfiguration.openshift.io/currentConfig: rendered-worker-a
    machineconfiguration.openshift.io/desiredConfig: rendered-worker-b
    machineconfiguration.openshift.io/state: Working
    note: "a<b & c: a long text that goes on and on beyond eighty columns, so that YAML folds it"
---
apiVersion: v1
kind: Node
metadata:
  name: master-0
  labels: {node-role.kubernetes.io/master: ""}
---
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata: {name: worker, labels: {pools.operator.machineconfiguration.openshift.io/worker: ""}}
spec:
  nodeSelector: {matchLabels: {node-role.kubernetes.io/worker: ""}}
  machineConfigSelector: {matchLabels: {machineconfiguration.openshift.io/role: worker}}
  configuration: {name: rendered-worker-b}
`;

beforeAll(async () => {
  dir = makeTmpDir('mco-get-e2e-');
  server = await startApiServerProcess({ storage: 'memory' });
  const file = dir.write('objects.yaml', Objects);
  const applied = kubectl(['apply', '-f', file]);
  expect(applied.code, applied.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await server.dispose();
  dir.remove();
});

describe.skipIf(!existsSync(kubectlBin))('mco get prints what kubectl prints', () => {
  // Each format on a list, one name, several names, a selector and a pool (each run starts a
  // process of each: the cases are chosen, not crossed).
  const cases: readonly (readonly [string, string])[] = [
    ['nodes', 'json'],
    ['nodes', 'yaml'],
    ['nodes', 'name'],
    [
      'nodes',
      'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.metadata.annotations}{"\\n"}{end}',
    ],
    ['nodes worker-0', 'json'],
    ['nodes worker-0', 'yaml'],
    ['nodes worker-0', 'jsonpath={.metadata.name}'],
    ['nodes worker-0 master-0', 'json'],
    ['nodes -l node-role.kubernetes.io/worker', 'yaml'],
    ['mcp', 'jsonpath={.items[*].metadata.name}'],
    ['mcp worker', 'yaml'],
    ['machineconfigpool/worker', 'name'],
  ];
  it.each(cases)(
    'get %s -o %s',
    (request, format) => {
      const args = ['get', ...request.split(' '), '-o', format];
      const ours = mco(args);
      const theirs = kubectl(args);
      expect(ours.stderr).toBe(theirs.stderr);
      expect(ours.stdout).toBe(theirs.stdout);
      expect(ours.code).toBe(theirs.code);
    },
    60_000,
  );

  it.each([
    [['get', 'nodes', 'worker-0', 'ghost', '-o', 'name']],
    [['get', 'mcp', 'ghost', '-o', 'json']],
  ])('%j fails as kubectl fails', (args) => {
    const ours = mco(args);
    const theirs = kubectl(args);
    expect(ours.code).toBe(1);
    expect(theirs.code).toBe(1);
    expect(ours.stderr).toBe(theirs.stderr);
    if (args.includes('-o')) expect(ours.stdout).toBe(theirs.stdout);
  });
});

describe('mco get tables', () => {
  it('nodes: pool, state and configs; pools: target, progress and status', () => {
    const nodes = mco(['get', 'nodes']);
    expect(nodes.stdout).toBe(
      [
        'NAME       POOL     STATUS     STATE     CURRENT             DESIRED',
        'master-0   <none>   NotReady   <none>    <none>              <none>',
        'worker-0   worker   NotReady   Working   rendered-worker-a   rendered-worker-b',
        '',
      ].join('\n'),
    );
    const pools = mco(['get', 'pools', 'worker']);
    expect(pools.stdout.split('\n')[0]).toBe(
      'NAME     TARGET              UPDATED   DEGRADED   STATUS',
    );
    expect(pools.stdout).toMatch(/^worker {3}rendered-worker-b {3}0\/0 {7}0 {10}Updating$/m);
    const none = mco(['get', 'nodes', '-l', 'no-such-label']);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found\n' });
  });
});

describe('mco version', () => {
  it('prints the client and the server version from /version', () => {
    const r = mco(['version', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { serverVersion: { gitVersion: string } };
    const theirs = JSON.parse(kubectl(['version', '-o', 'json']).stdout) as {
      serverVersion: { gitVersion: string };
    };
    expect(report.serverVersion.gitVersion).toBe(theirs.serverVersion.gitVersion);
    expect(mco(['version']).stdout).toBe(
      `Client Version: 0.1.0\nServer Version: ${theirs.serverVersion.gitVersion}\n`,
    );
  });
});

describe('kubeconfig loading in a real process', () => {
  it('merges $KUBECONFIG (missing files skipped) and honours --context', () => {
    const admin = readFileSync(server.kubeconfigPath, 'utf8');
    // A first file that names a context of its own, pointing nowhere, and makes it current.
    const other = dir.write(
      'other.kubeconfig',
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: nowhere, cluster: {server: "https://127.0.0.1:9"}}]',
        'users: [{name: nobody, user: {token: x}}]',
        'contexts: [{name: elsewhere, context: {cluster: nowhere, user: nobody}}]',
        'current-context: elsewhere',
        '',
      ].join('\n'),
    );
    const list = `${dir.path}/missing:${other}:${server.kubeconfigPath}`;
    const context = /current-context: (\S+)/.exec(admin)?.[1] ?? '';
    const refused = mco(['get', 'nodes', '-o', 'name'], { KUBECONFIG: list });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'The connection to the server 127.0.0.1:9 was refused - did you specify the right host or port?\n',
    );
    const chosen = mco(['get', 'nodes', '-o', 'name', '--context', context], { KUBECONFIG: list });
    expect(chosen).toMatchObject({ code: 0, stdout: 'node/master-0\nnode/worker-0\n' });
    const unknown = mco(['get', 'nodes', '--context', 'nope'], { KUBECONFIG: list });
    expect(unknown).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Error in configuration: context was not found for specified context: nope\n',
    });
    // --kubeconfig overrides $KUBECONFIG.
    const flag = mco(['get', 'nodes', '-o', 'name', '--kubeconfig', server.kubeconfigPath], {
      KUBECONFIG: other,
    });
    expect(flag.stdout).toBe('node/master-0\nnode/worker-0\n');
    // The same merge kubectl makes: its current context is the first file's.
    expect(
      execFileSync(kubectlBin, ['config', 'current-context'], {
        env: { ...process.env, KUBECONFIG: list },
        encoding: 'utf8',
      }).trim(),
    ).toBe('elsewhere');
  });
});
