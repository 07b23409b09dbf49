/**
 * The real kubectl (1.32; spot checks on 1.27 and 1.33) against `mco apiserver`, with the generated
 * admin kubeconfig and a fresh discovery cache for every command. Each assertion checks what
 * kubectl printed, not only its exit code.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

const Group = 'machineconfiguration.openshift.io';
const Strategic415 =
  'error: application/strategic-merge-patch+json is not supported by machineconfiguration.openshift.io/v1, Kind=MachineConfig: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n';

let server: ApiServerProcess;
let work: string;
let caches = 0;

function options(extra: Partial<KubectlOptions> = {}): KubectlOptions {
  caches += 1;
  return {
    kubeconfig: server.kubeconfig('admin'),
    cacheDir: join(work, `cache-${caches}`),
    ...extra,
  };
}

/** kubectl 1.32 with a fresh --cache-dir. */
const k = (args: readonly string[], extra: Partial<KubectlOptions> = {}): Promise<KubectlResult> =>
  kubectl(args, options(extra));

function file(name: string, content: string): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

/** Matches kubectl table output line by line; `<age>` stands for an AGE cell such as `3s`. */
function expectTable(stdout: string, lines: readonly string[]): void {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = lines.map((l) => escape(l).replace(/<age>/g, '\\d+(?:s|m\\d*s?)')).join('\n');
  expect(stdout).toMatch(new RegExp(`^${pattern}\n$`));
}

const nodeYaml = `apiVersion: v1
kind: Node
metadata:
  name: worker-0
  labels:
    node-role.kubernetes.io/worker: ""
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: kubelet is posting ready status, lastHeartbeatTime: "2026-11-29T09:00:00Z", lastTransitionTime: "2026-11-29T09:00:00Z"}
  addresses:
  - {type: InternalIP, address: 10.0.0.10}
  nodeInfo: {machineID: m, systemUUID: s, bootID: b, kernelVersion: 5.14.0-427.el9, osImage: Red Hat Enterprise Linux CoreOS, containerRuntimeVersion: cri-o://1.32.0, kubeletVersion: v1.32.5, kubeProxyVersion: v1.32.5, operatingSystem: linux, architecture: amd64}
`;

const poolYaml = `apiVersion: ${Group}/v1
kind: MachineConfigPool
metadata:
  name: worker
spec:
  machineConfigSelector:
    matchLabels:
      machineconfiguration.openshift.io/role: worker
  nodeSelector:
    matchLabels:
      node-role.kubernetes.io/worker: ""
`;

const chronyYaml = (name: string, server: string) => `apiVersion: ${Group}/v1
kind: MachineConfig
metadata:
  name: ${name}
  labels:
    machineconfiguration.openshift.io/role: worker
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

async function get(path: string): Promise<Record<string, unknown>> {
  return (await api(server, 'GET', path, { token: server.token() })).json();
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mco-kubectl-e2e-'));
  server = await startApiServer();
  const created = await k(['create', '-f', file('base.yaml', `${nodeYaml}---\n${poolYaml}`)]);
  expect(created.stdout).toBe(`node/worker-0 created\nmachineconfigpool.${Group}/worker created\n`);
});

afterAll(async () => {
  await server.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe('kubectl 1.32 against mco apiserver', () => {
  it('version', async () => {
    const result = await k(['version']);
    expect(result).toMatchObject({
      code: 0,
      stdout: 'Client Version: v1.32.5\nKustomize Version: v5.5.0\nServer Version: v1.32.5\n',
    });
  });

  it('api-resources', async () => {
    const result = await k(['api-resources']);
    expect(result.code).toBe(0);
    const rows = result.stdout.split('\n').map((l) => l.trim().split(/\s+/).join(' '));
    expect(rows[0]).toBe('NAME SHORTNAMES APIVERSION NAMESPACED KIND');
    expect(rows).toEqual(
      expect.arrayContaining([
        'nodes no v1 false Node',
        'pods po v1 true Pod',
        'events ev v1 true Event',
        'leases coordination.k8s.io/v1 true Lease',
        'poddisruptionbudgets pdb policy/v1 true PodDisruptionBudget',
        `machineconfigpools mcp ${Group}/v1 false MachineConfigPool`,
        `machineconfigs mc ${Group}/v1 false MachineConfig`,
        `controllerconfigs ${Group}/v1 false ControllerConfig`,
      ]),
    );
  });

  it('apply (client-side): create, unchanged, then update', async () => {
    const v1 = file('chrony-v1.yaml', chronyYaml('50-worker-chrony', 'a.example.org'));
    expect(await k(['apply', '-f', v1])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/50-worker-chrony created\n`,
    });
    expect(await k(['apply', '-f', v1])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/50-worker-chrony unchanged\n`,
    });
    const v2 = file('chrony-v2.yaml', chronyYaml('50-worker-chrony', 'b.example.org'));
    expect(await k(['apply', '-f', v2])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/50-worker-chrony configured\n`,
    });
    const source = await k([
      'get',
      'mc',
      '50-worker-chrony',
      '-o',
      'jsonpath={.spec.config.storage.files[0].contents.source}',
    ]);
    expect(source.stdout).toBe('data:,pool%20b.example.org%20iburst');
  });

  it('apply --server-side: create, then update', async () => {
    const v1 = file('ssa-v1.yaml', chronyYaml('60-worker-ssa', 'c.example.org'));
    expect(await k(['apply', '--server-side', '-f', v1])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/60-worker-ssa serverside-applied\n`,
    });
    const v2 = file('ssa-v2.yaml', chronyYaml('60-worker-ssa', 'd.example.org'));
    expect(await k(['apply', '--server-side', '-f', v2])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/60-worker-ssa serverside-applied\n`,
    });
    const source = await k([
      'get',
      'mc',
      '60-worker-ssa',
      '-o',
      'jsonpath={.spec.config.storage.files[0].contents.source}',
    ]);
    expect(source.stdout).toBe('data:,pool%20d.example.org%20iburst');
  });

  it('create -f, then AlreadyExists', async () => {
    const path = file('created.yaml', chronyYaml('70-worker-created', 'e.example.org'));
    expect(await k(['create', '-f', path])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/70-worker-created created\n`,
    });
    const again = await k(['create', '-f', path]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `Error from server (AlreadyExists): error when creating "${path}": machineconfigs.${Group} "70-worker-created" already exists\n`,
    );
  });

  it('replace', async () => {
    const path = file('replaced.yaml', chronyYaml('70-worker-created', 'f.example.org'));
    expect(await k(['replace', '-f', path])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/70-worker-created replaced\n`,
    });
    const source = await k([
      'get',
      'mc',
      '70-worker-created',
      '-o',
      'jsonpath={.spec.config.storage.files[0].contents.source}',
    ]);
    expect(source.stdout).toBe('data:,pool%20f.example.org%20iburst');
  });

  it('get nodes, mcp, mc with upstream columns', async () => {
    // AGE is not the last column here, so its width moves VERSION: match the row loosely.
    expect((await k(['get', 'nodes'])).stdout).toMatch(
      /^NAME {7}STATUS {3}ROLES {4}AGE\s+VERSION\nworker-0 {3}Ready {4}worker {3}\d+s\s+v1\.32\.5\n$/,
    );
    const wide = await k(['get', 'nodes', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]?.split(/\s+/)).toEqual([
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    expect(wide.stdout.split('\n')[1]).toMatch(
      /^worker-0\s+Ready\s+worker\s+\d+s\s+v1\.32\.5\s+10\.0\.0\.10\s+<none>\s+Red Hat Enterprise Linux CoreOS\s+5\.14\.0-427\.el9\s+cri-o:\/\/1\.32\.0$/,
    );
    expectTable((await k(['get', 'mcp'])).stdout, [
      'NAME     CONFIG   UPDATED   UPDATING   DEGRADED   MACHINECOUNT   READYMACHINECOUNT   UPDATEDMACHINECOUNT   DEGRADEDMACHINECOUNT   AGE',
      'worker                                                                                                                            <age>',
    ]);
    expectTable((await k(['get', 'mc'])).stdout, [
      'NAME                GENERATEDBYCONTROLLER   IGNITIONVERSION   AGE',
      '50-worker-chrony                            3.4.0             <age>',
      '60-worker-ssa                               3.4.0             <age>',
      '70-worker-created                           3.4.0             <age>',
    ]);
  });

  it('get -o yaml, -o json, -o jsonpath', async () => {
    const yaml = await k(['get', 'mcp', 'worker', '-o', 'yaml']);
    expect(yaml.stdout).toMatch(
      new RegExp(
        `^apiVersion: ${Group}/v1\nkind: MachineConfigPool\nmetadata:\n  creationTimestamp: "[0-9TZ:-]+"\n  generation: 1\n  name: worker\n`,
      ),
    );
    expect(yaml.stdout).toContain(
      '  machineConfigSelector:\n    matchLabels:\n      machineconfiguration.openshift.io/role: worker\n',
    );
    const json = JSON.parse((await k(['get', 'node', 'worker-0', '-o', 'json'])).stdout) as {
      kind: string;
      metadata: { name: string; uid: string };
    };
    expect(json.kind).toBe('Node');
    expect(json.metadata.name).toBe('worker-0');
    expect(json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    const names = await k([
      'get',
      'mc',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}',
    ]);
    expect(names.stdout).toBe('50-worker-chrony\n60-worker-ssa\n70-worker-created\n');
  });

  it('get -w sees a change', async () => {
    const single = kubectlProcess(['get', 'mcp', 'worker', '-w'], options());
    const events = kubectlProcess(['get', 'mcp', '-w', '--output-watch-events'], options());
    await eventually(
      'both watches to print their first row',
      () =>
        single.output().stdout.split('\n').length >= 3 && events.output().stdout.includes('ADDED'),
    );
    await api(server, 'PATCH', `/apis/${Group}/v1/machineconfigpools/worker`, {
      token: server.token(),
      body: JSON.stringify({ metadata: { labels: { watched: 'yes' } } }),
      contentType: 'application/merge-patch+json',
    });
    await eventually(
      'the watches to print the change',
      () =>
        single.output().stdout.split('\n').length >= 4 &&
        events.output().stdout.includes('MODIFIED'),
    );
    single.kill();
    events.kill();
    const lines = single.output().stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^NAME\s+CONFIG\s+UPDATED/);
    expect(lines[1]).toMatch(/^worker\s+\d+\S*$/);
    expect(lines[2]).toMatch(/^worker\s+\d+\S*$/);
    expect(events.output().stdout).toMatch(
      /^EVENT\s+NAME\s+CONFIG.*\nADDED\s+worker\s+\S+\nMODIFIED\s+worker\s+\S+\n$/,
    );
  });

  it('patch: merge, json and strategic on a Node; strategic on a MachineConfig fails as on a real cluster', async () => {
    expect(
      await k(['patch', 'node', 'worker-0', '-p', '{"metadata":{"labels":{"strategic":"1"}}}']),
    ).toMatchObject({ code: 0, stdout: 'node/worker-0 patched\n' });
    expect(
      await k([
        'patch',
        'node',
        'worker-0',
        '--type',
        'merge',
        '-p',
        '{"metadata":{"labels":{"merge":"1"}}}',
      ]),
    ).toMatchObject({ code: 0, stdout: 'node/worker-0 patched\n' });
    expect(
      await k([
        'patch',
        'node',
        'worker-0',
        '--type',
        'json',
        '-p',
        '[{"op":"add","path":"/metadata/labels/json","value":"1"}]',
      ]),
    ).toMatchObject({ code: 0, stdout: 'node/worker-0 patched\n' });
    expect(
      await k([
        'patch',
        'node',
        'worker-0',
        '--type',
        'merge',
        '-p',
        '{"metadata":{"labels":{"merge":"1"}}}',
      ]),
    ).toMatchObject({ code: 0, stdout: 'node/worker-0 patched (no change)\n' });
    const labels = await k(['get', 'node', 'worker-0', '-o', 'jsonpath={.metadata.labels}']);
    expect(JSON.parse(labels.stdout)).toEqual({
      'node-role.kubernetes.io/worker': '',
      strategic: '1',
      merge: '1',
      json: '1',
    });
    const strategic = await k([
      'patch',
      'mc',
      '50-worker-chrony',
      '-p',
      '{"metadata":{"labels":{"x":"y"}}}',
    ]);
    expect(strategic).toMatchObject({ code: 1, stdout: '', stderr: Strategic415 });
    expect(
      await k([
        'patch',
        'mc',
        '50-worker-chrony',
        '--type',
        'merge',
        '-p',
        '{"metadata":{"labels":{"x":"y"}}}',
      ]),
    ).toMatchObject({ code: 0, stdout: `machineconfig.${Group}/50-worker-chrony patched\n` });
  });

  it('edit (non-interactive editor)', async () => {
    const editor = file(
      'editor.sh',
      '#!/bin/sh\nsed -i "s/^  paused: false/  paused: true/; s/^spec:/spec:\\n  paused: true/" "$1"\n',
    );
    chmodSync(editor, 0o755);
    const edited = await k(['edit', 'mcp', 'worker'], {
      env: { KUBE_EDITOR: editor, EDITOR: editor },
    });
    expect(edited).toMatchObject({ code: 0, stdout: `machineconfigpool.${Group}/worker edited\n` });
    expect(
      (await k(['get', 'mcp', 'worker', '-o', 'jsonpath={.spec.paused} {.metadata.generation}']))
        .stdout,
    ).toBe('true 2');
    const unchanged = await k(['edit', 'mcp', 'worker'], {
      env: { KUBE_EDITOR: 'true', EDITOR: 'true' },
    });
    expect(unchanged).toMatchObject({ code: 0, stderr: 'Edit cancelled, no changes made.\n' });
  });

  it('wait --for=condition=Updated mcp/worker (the condition written through /status with observedGeneration)', async () => {
    const waiting = kubectlProcess(
      ['wait', '--for=condition=Updated', 'mcp/worker', '--timeout=30s'],
      options(),
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(waiting.output().stdout).toBe('');
    const pool = (await get(`/apis/${Group}/v1/machineconfigpools/worker`)) as {
      metadata: { generation: number };
    };
    const status = await api(
      server,
      'PATCH',
      `/apis/${Group}/v1/machineconfigpools/worker/status`,
      {
        token: server.token(),
        contentType: 'application/merge-patch+json',
        body: JSON.stringify({
          status: {
            observedGeneration: pool.metadata.generation,
            configuration: { name: 'rendered-worker-0123' },
            machineCount: 1,
            readyMachineCount: 1,
            updatedMachineCount: 1,
            degradedMachineCount: 0,
            conditions: [
              {
                type: 'Updated',
                status: 'True',
                lastTransitionTime: '2026-11-29T09:00:00Z',
                reason: '',
                message: 'All nodes are updated with MachineConfig rendered-worker-0123',
              },
              {
                type: 'Updating',
                status: 'False',
                lastTransitionTime: '2026-11-29T09:00:00Z',
                reason: '',
                message: '',
              },
              {
                type: 'Degraded',
                status: 'False',
                lastTransitionTime: '2026-11-29T09:00:00Z',
                reason: '',
                message: '',
              },
            ],
          },
        }),
      },
    );
    expect(status.status).toBe(200);
    expect(await waiting.done).toMatchObject({
      code: 0,
      stdout: `machineconfigpool.${Group}/worker condition met\n`,
    });
    expectTable((await k(['get', 'mcp'])).stdout, [
      'NAME     CONFIG                 UPDATED   UPDATING   DEGRADED   MACHINECOUNT   READYMACHINECOUNT   UPDATEDMACHINECOUNT   DEGRADEDMACHINECOUNT   AGE',
      'worker   rendered-worker-0123   True      False      False      1              1                   1                     0                      <age>',
    ]);
  });

  it('describe', async () => {
    const result = await k(['describe', 'mcp', 'worker']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Name: {9}worker\nNamespace: {4}\nLabels: {7}watched=yes\nAnnotations: {2}<none>\nAPI Version: {2}machineconfiguration\.openshift\.io\/v1\nKind: {9}MachineConfigPool\n/,
    );
    expect(result.stdout).toContain('  Paused:                              true\n');
    expect(result.stdout).toContain(
      '    Message:               All nodes are updated with MachineConfig rendered-worker-0123\n',
    );
    expect(result.stdout).toMatch(/\nEvents:\s+<none>\n$/);
  });

  it('explain mcp.spec', async () => {
    const result = await k(['explain', 'mcp.spec']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^GROUP: {6}machineconfiguration\.openshift\.io\nKIND: {7}MachineConfigPool\nVERSION: {4}v1\n\nFIELD: spec <Object>\n/,
    );
    expect(result.stdout).toContain('  machineConfigSelector\t<Object>\n');
    expect(result.stdout).toContain('  paused\t<boolean>\n');
  });

  it('label and annotate', async () => {
    expect(await k(['label', 'node', 'worker-0', 'zone=a'])).toMatchObject({
      code: 0,
      stdout: 'node/worker-0 labeled\n',
    });
    expect(await k(['label', 'node', 'worker-0', 'zone-'])).toMatchObject({
      code: 0,
      stdout: 'node/worker-0 unlabeled\n',
    });
    expect(await k(['annotate', 'mc', '50-worker-chrony', 'example.com/note=hi'])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/50-worker-chrony annotated\n`,
    });
    expect(
      (
        await k([
          'get',
          'mc',
          '50-worker-chrony',
          '-o',
          'jsonpath={.metadata.annotations.example\\.com/note}',
        ])
      ).stdout,
    ).toBe('hi');
  });

  it('cordon and uncordon', async () => {
    expect(await k(['cordon', 'worker-0'])).toMatchObject({
      code: 0,
      stdout: 'node/worker-0 cordoned\n',
    });
    expect((await k(['get', 'nodes'])).stdout).toMatch(
      /\nworker-0\s+Ready,SchedulingDisabled\s+worker\s/,
    );
    expect(await k(['cordon', 'worker-0'])).toMatchObject({
      code: 0,
      stdout: 'node/worker-0 already cordoned\n',
    });
    expect(await k(['uncordon', 'worker-0'])).toMatchObject({
      code: 0,
      stdout: 'node/worker-0 uncordoned\n',
    });
    expect(
      (await k(['get', 'node', 'worker-0', '-o', 'jsonpath={.spec.unschedulable}'])).stdout,
    ).toBe('');
  });

  it('delete', async () => {
    expect(await k(['delete', 'mc', '70-worker-created'])).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group} "70-worker-created" deleted\n`,
    });
    const gone = await k(['get', 'mc', '70-worker-created']);
    expect(gone).toMatchObject({
      code: 1,
      stderr: `Error from server (NotFound): machineconfigs.${Group} "70-worker-created" not found\n`,
    });
  });

  it("drain evicts the node's pods, blocked by a PodDisruptionBudget until it allows", async () => {
    const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
  labels: {app: web}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7d4b9c, uid: 6f1c1a52-0000-4000-8000-000000000001, controller: true, blockOwnerDeletion: true}
spec:
  nodeName: worker-0
  containers:
  - {name: web, image: registry.example/web:1}
`;
    const pdb = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
`;
    const created = await k([
      'create',
      '-f',
      file('web.yaml', `${pod('web-1')}---\n${pod('web-2')}---\n${pdb}`),
    ]);
    expect(created.stdout).toBe(
      'pod/web-1 created\npod/web-2 created\npoddisruptionbudget.policy/web created\n',
    );
    // The kubelet's part: the pods run and are ready (create resets a pod's status, as upstream).
    for (const name of ['web-1', 'web-2']) {
      const running = await k([
        'patch',
        'pod',
        name,
        '--subresource',
        'status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({
          status: {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: 'True' }],
            containerStatuses: [
              {
                name: 'web',
                ready: true,
                restartCount: 0,
                image: 'registry.example/web:1',
                imageID: '',
                started: true,
                state: { running: { startedAt: '2026-11-29T09:00:00Z' } },
              },
            ],
          },
        }),
      ]);
      expect(running.stdout).toBe(`pod/${name} patched\n`);
    }
    await eventually(
      'the budget to allow no disruption',
      async () =>
        (
          await k([
            'get',
            'pdb',
            'web',
            '-o',
            'jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}',
          ])
        ).stdout === '2/0',
    );

    const blocked = await k(['drain', 'worker-0', '--timeout=7s']);
    expect(blocked.code).toBe(1);
    expect(blocked.stdout).toContain('node/worker-0 cordoned\n');
    expect(blocked.stderr).toContain(
      `error when evicting pods/"web-1" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n`,
    );
    expect(blocked.stderr).toContain('error: unable to drain node "worker-0" due to error: ');
    expect(blocked.stderr).toContain(
      `error when evicting pods/"web-1" -n "default": global timeout reached: 7s`,
    );
    expect((await k(['get', 'pods', '-o', 'name'])).stdout).toBe('pod/web-1\npod/web-2\n');

    const draining = kubectlProcess(['drain', 'worker-0', '--timeout=60s'], options());
    await eventually('the drain to hit the budget', () =>
      draining.output().stderr.includes("violate the pod's disruption budget"),
    );
    expect(
      await k(['patch', 'pdb', 'web', '--type', 'merge', '-p', '{"spec":{"minAvailable":0}}']),
    ).toMatchObject({ stdout: 'poddisruptionbudget.policy/web patched\n' });
    const done = await draining.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^node\/worker-0 already cordoned\n/);
    expect(done.stdout).toContain('pod/web-1 evicted\n');
    expect(done.stdout).toContain('pod/web-2 evicted\n');
    expect(done.stdout).toMatch(/node\/worker-0 drained\n$/);
    expect(await k(['get', 'pods'])).toMatchObject({
      stdout: '',
      stderr: 'No resources found in default namespace.\n',
    });
  });
});

describe('spot checks on other kubectl versions', () => {
  it('kubectl 1.33: version, get mcp, apply, wait', async () => {
    const v = { version: '1.33' };
    expect((await k(['version'], v)).stdout).toMatch(
      /^Client Version: v1\.33\.\d+\nKustomize Version: v\S+\nServer Version: v1\.32\.5\n$/,
    );
    expect((await k(['get', 'mcp'], v)).stdout).toMatch(
      /^NAME\s+CONFIG\s+UPDATED\s+UPDATING\s+DEGRADED\s+MACHINECOUNT\s+READYMACHINECOUNT\s+UPDATEDMACHINECOUNT\s+DEGRADEDMACHINECOUNT\s+AGE\nworker\s+rendered-worker-0123\s+True\s+False\s+False\s+1\s+1\s+1\s+0\s+\d+\S*\n$/,
    );
    const path = file('v133.yaml', chronyYaml('80-worker-133', 'g.example.org'));
    expect(await k(['apply', '-f', path], v)).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/80-worker-133 created\n`,
    });
    expect(
      await k(['wait', '--for=condition=Updated', 'mcp/worker', '--timeout=10s'], v),
    ).toMatchObject({ code: 0, stdout: `machineconfigpool.${Group}/worker condition met\n` });
    expect(
      await k(['patch', 'mc', '80-worker-133', '-p', '{"metadata":{"labels":{"x":"y"}}}'], v),
    ).toMatchObject({ code: 1, stderr: Strategic415 });
  });

  it('kubectl 1.27: get mc, apply --validate=false (it needs OpenAPI v2 otherwise), delete', async () => {
    const v = { version: '1.27' };
    expect((await k(['get', 'mc', '50-worker-chrony'], v)).stdout).toMatch(
      /^NAME\s+GENERATEDBYCONTROLLER\s+IGNITIONVERSION\s+AGE\n50-worker-chrony\s+3\.4\.0\s+\d+\S*\n$/,
    );
    const path = file('v127.yaml', chronyYaml('90-worker-127', 'h.example.org'));
    expect(await k(['apply', '--validate=false', '-f', path], v)).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group}/90-worker-127 created\n`,
    });
    expect(await k(['delete', 'mc', '90-worker-127'], v)).toMatchObject({
      code: 0,
      stdout: `machineconfig.${Group} "90-worker-127" deleted\n`,
    });
  });
});
