/**
 * The update audit on the box (`mco start --leader-elect`: one master, two workers that are real
 * OSTree sysroots with real daemons). The admin applies a MachineConfig that writes a file (the
 * workers drain and reboot) and, while the first worker updates, the controller is SIGKILLed:
 * the box starts it again, and the new process takes the controller Lease as a new leader once
 * the old one's lapses. A second user, a ServiceAccount with its own token, then applies an SSH
 * key (no drain, no reboot). Checked, for each worker:
 *
 * - `mco node history` has each update once, with the MachineConfig behind it and the user who
 *   applied it (the API server's stamp: the requester, not what the client sent), what the daemon
 *   did (drained, rebooted, as its boot id and the drain requests show) and the diff;
 * - the Node's events say the same (`UpdateAudited`); `mco rollout history` names the cause;
 * - after one more controller kill (a third leader), the history is what it was: nothing twice.
 *
 * docs/rollouts.md's transcripts are run as printed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { Lease } from '../../src/api/coordination/v1/lease.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation, McoNamespace } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import {
  AuditAnnotation,
  type NodeUpdateRecord,
} from '../../src/api/machineconfiguration/v1/update-audit.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { BoxProcess } from '../support/box-process.js';
import { bootIdOf, putMcoOnPath, userShell } from '../support/box-user-shell.js';
import { runDocTranscript } from '../support/doc-transcript.js';
import { until } from '../support/until.js';

const Minute = 60_000;
const Workers = ['worker-0', 'worker-1'] as const;
const Alice = 'system:serviceaccount:default:alice';
const Admin = 'system:admin';

describe('the update audit on the box: who caused each update, and what it did', () => {
  let work = '';
  let dataDir = '';
  let kubeconfig = '';
  let aliceKubeconfig = '';
  let box: BoxProcess | undefined;
  let admin: ResourceClient;

  const { run, sh, mco } = userShell({
    work: () => work,
    kubeconfig: () => kubeconfig,
    timeoutMs: 6 * Minute,
  });
  const getPool = () => admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
  const bootId = (n: string) => bootIdOf(dataDir, n);
  const bootIds = () => new Map(Workers.map((w) => [w, bootId(w)]));
  const lease = () => admin.get<Lease>(Resources.lease, 'machine-config-controller', McoNamespace);

  /** SIGKILLs the box's controller (the box starts it again) and waits for a new leader. */
  async function killController(): Promise<void> {
    const before = await lease();
    const found = await sh(
      `pgrep -f 'mco.js controller --kubeconfig ${dataDir}/apiserver/controller.kubeconfig'`,
    );
    const pids = found.stdout
      .trim()
      .split('\n')
      .filter((p) => p !== '')
      .map(Number);
    expect(pids.length, found.stderr).toBe(1);
    process.kill(pids[0] ?? 0, 'SIGKILL');
    await until(
      'a new controller leader',
      async () => {
        const now = await lease();
        return now.spec?.holderIdentity !== before.spec?.holderIdentity &&
          (now.spec?.leaseTransitions ?? 0) > (before.spec?.leaseTransitions ?? 0)
          ? true
          : undefined;
      },
      { timeoutMs: 2 * Minute, intervalMs: 500 },
    );
  }

  async function apply(mc: MachineConfig, as: string): Promise<string> {
    const before = (await getPool()).spec.configuration?.name ?? '';
    const file = join(work, `${mc.metadata.name ?? ''}.json`);
    writeFileSync(file, JSON.stringify(mc));
    const r = await run('kubectl', ['apply', '-f', file], { KUBECONFIG: as });
    expect(r.code, r.stderr).toBe(0);
    return until(
      `the worker pool to render ${mc.metadata.name ?? ''}`,
      async () => {
        const now = (await getPool()).spec.configuration?.name ?? '';
        return now !== '' && now !== before ? now : undefined;
      },
      2 * Minute,
    );
  }

  const worker = (name: string, spec: NonNullable<MachineConfig['spec']>): MachineConfig => ({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
    spec,
  });

  async function history(node: string): Promise<NodeUpdateRecord[]> {
    const r = await mco(['node', 'history', `node/${node}`, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as NodeUpdateRecord[];
  }

  async function rolledOut(target: string): Promise<void> {
    const r = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '5m']);
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    expect((await getPool()).status?.configuration?.name).toBe(target);
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mco-audit-'));
    dataDir = join(work, '.mco');
    kubeconfig = join(dataDir, 'admin.kubeconfig');
    putMcoOnPath(work);
    box = await BoxProcess.start(dataDir, { masters: 1, workers: Workers.length }, 10 * Minute, [
      '--leader-elect',
    ]);
    admin = createKubeClient({ kubeconfigPath: kubeconfig });
    // A second user: a ServiceAccount that may write MachineConfigs, with its own token.
    // (applied as manifests: `kubectl create serviceaccount` sends protobuf, which is not served yet)
    const rbac = join(work, 'alice.json');
    writeFileSync(
      rbac,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'ServiceAccount',
            metadata: { name: 'alice', namespace: 'default' },
          },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: 'mc-editor' },
            rules: [
              {
                apiGroups: ['machineconfiguration.openshift.io'],
                resources: ['machineconfigs'],
                verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
              },
            ],
          },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: 'alice-mc-editor' },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: 'mc-editor',
            },
            subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: 'default' }],
          },
        ],
      }),
    );
    const applied = await sh(`kubectl apply -f ${rbac}`);
    expect(applied.code, applied.stderr).toBe(0);
    const token = (await sh('kubectl create token alice -n default')).stdout.trim();
    expect(token).not.toBe('');
    const config = parse(readFileSync(kubeconfig, 'utf8')) as {
      users: { name: string; user: Record<string, string> }[];
      contexts: { context: { user: string } }[];
    };
    config.users = [{ name: 'alice', user: { token } }];
    for (const c of config.contexts) c.context.user = 'alice';
    aliceKubeconfig = join(work, 'alice.kubeconfig');
    writeFileSync(aliceKubeconfig, stringify(config), { mode: 0o600 });
    const whoami = await run(
      'kubectl',
      ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'],
      {
        KUBECONFIG: aliceKubeconfig,
      },
    );
    expect(whoami.stdout).toBe(Alice);
  }, 12 * Minute);

  afterAll(async () => {
    await box?.stop();
    BoxProcess.removeFolder(work);
  }, 3 * Minute);

  it(
    'names the admin and the second user, survives a controller restart and two leader changes, and says what each node did',
    async () => {
      const first = (await getPool()).spec.configuration?.name ?? '';
      const booted = bootIds();
      const target = await apply(
        worker('50-audit-file', {
          config: {
            ignition: { version: '3.5.0' },
            storage: {
              files: [
                { path: '/etc/audit.conf', mode: 420, contents: { source: 'data:,audit%0A' } },
              ],
            },
          },
        }),
        kubeconfig,
      );
      // While the first worker updates, the controller dies; its successor finishes the rollout.
      await until(
        'a worker pointed at the new config',
        async () => {
          const nodes = await admin.list<Node>(Resources.node, {
            labelSelector: 'node-role.kubernetes.io/worker',
          });
          return nodes.items.some(
            (n) => n.metadata.annotations?.[Annotation.desiredConfig] === target,
          )
            ? true
            : undefined;
        },
        { timeoutMs: 2 * Minute, intervalMs: 200 },
      );
      await killController();
      await rolledOut(target);
      const rebooted = bootIds();
      for (const w of Workers) expect(rebooted.get(w), w).not.toBe(booted.get(w));

      // The second user: an SSH key, which neither drains nor reboots.
      const keys = await apply(
        worker('51-audit-ssh', {
          config: {
            ignition: { version: '3.5.0' },
            passwd: {
              users: [
                {
                  name: 'core',
                  sshAuthorizedKeys: [
                    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAudit alice@example.com',
                  ],
                },
              ],
            },
          },
        }),
        aliceKubeconfig,
      );
      await rolledOut(keys);
      expect(bootIds()).toEqual(rebooted);
      // A user cannot put the change on someone else: the stamp is the server's.
      const forged = await run(
        'kubectl',
        ['annotate', 'mc', '51-audit-ssh', '--overwrite', `${AuditAnnotation.changedBy}=${Admin}`],
        { KUBECONFIG: aliceKubeconfig },
      );
      expect(forged.code, forged.stderr).toBe(0);
      const stamped = await admin.get<MachineConfig>(Resources.machineConfig, '51-audit-ssh');
      expect(stamped.metadata.annotations?.[AuditAnnotation.changedBy]).toBe(Alice);

      const expected = (w: string) => [
        {
          node: w,
          pool: 'worker',
          from: first,
          to: target,
          drained: true,
          rebooted: true,
          actions: ['Reboot'],
          changes: [
            { name: '50-audit-file', change: 'added', changed: { by: Admin, source: 'admission' } },
          ],
          diff: 'files /etc/audit.conf',
        },
        {
          node: w,
          pool: 'worker',
          from: target,
          to: keys,
          drained: false,
          rebooted: false,
          actions: ['None'],
          changes: [
            { name: '51-audit-ssh', change: 'added', changed: { by: Alice, source: 'admission' } },
          ],
          diff: 'SSH keys',
        },
      ];
      const audited = new Map<string, NodeUpdateRecord[]>();
      for (const w of Workers) {
        const records = await until(
          `${w}'s history of both updates`,
          async () => {
            const h = (await history(w)).filter((r) => r.to === target || r.to === keys);
            return h.length >= 2 ? h : undefined;
          },
          { timeoutMs: Minute, intervalMs: 1000 },
        );
        expect(records, w).toMatchObject(expected(w));
        audited.set(w, await history(w));
      }
      // On the Node's events, as kubectl shows them.
      const events = await sh(
        `kubectl get events -A --field-selector involvedObject.name=worker-0,reason=UpdateAudited -o jsonpath='{range .items[*]}{.message}{"\\n"}{end}'`,
      );
      expect(events.stdout).toContain(
        `${first} -> ${target}: drained, rebooted (Reboot); why: 50-audit-file added by ${Admin} at `,
      );
      expect(events.stdout).toContain(
        `${target} -> ${keys}: no drain, no reboot (None); why: 51-audit-ssh added by ${Alice} at `,
      );
      // The transcripts of docs/rollouts.md, as printed.
      await runDocTranscript('docs/rollouts.md', 'mco node history node/worker-0', sh, 'each');
      await runDocTranscript('docs/rollouts.md', 'mco rollout history mcp/worker', sh, 'each');

      // One more restart and leader change: the history stays as it was, nothing twice.
      await killController();
      await new Promise((r) => setTimeout(r, 5000));
      for (const w of Workers) expect(await history(w), w).toEqual(audited.get(w));
    },
    20 * Minute,
  );
});
