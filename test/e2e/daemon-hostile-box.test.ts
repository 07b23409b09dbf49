/**
 * Hostile MachineConfigs in the cluster in a box: a real `mco apiserver` (SQLite) and a real
 * `mco daemon --host ostree` on a node root under a temp folder with a sentinel folder next to it.
 *
 * 1. Through the API, each hostile config is refused at admission (422, the reason per field): the
 *    table below, and the bad parts the daemon's own property test generates (hostile-configs.ts).
 * 2. A real API server stores whatever it is given, so the same configs are then written past
 *    admission, into the storage itself (the server stopped meanwhile), and the node is pointed at
 *    each in turn (the table and a sample of the generated ones, two of each kind): the daemon
 *    refuses it, the node goes Degraded with the reason, and the node's
 *    root and the sentinel are exactly as they were (paths, modes, owners, contents, mtimes).
 * 3. Pointed back at its good config, the node is Done again.
 */
import fc from 'fast-check';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpsResourceClient } from '../../src/adapters/https-resource-client.js';
import { SqliteStorage } from '../../src/storage/sqlite-storage.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../../src/api/machineconfiguration/v1/machine-config-node.js';
import { Resources } from '../../src/api/resource-refs.js';
import { StatusError } from '../../src/api/meta/v1/status-error.js';
import { encodeObject } from '../../src/apiserver/store/codec.js';
import { issueNodeKubeconfig } from '../../src/cli/node-kubeconfig.js';
import { KubeletKubeconfigPath } from '../../src/simulator/kubelet-credentials.js';
import type { IgnitionConfig } from '../../src/ignition/types.js';
import { startApiServerProcess, type ApiServerHandle } from '../support/apiserver-process.js';
import { mc } from '../support/daemon-fixtures.js';
import { badPart, hostileIgnition, Refusals, type BadPart } from '../support/hostile-configs.js';
import {
  HostileOsImage,
  makeHostileLayout,
  prepareOstreeRoot,
  snapshotOutside,
  type HostileLayout,
} from '../support/hostile-roots.js';
import { McoProcess } from '../support/mco-processes.js';
import { snapshotTree, type TreeSnapshot } from '../support/tree-snapshot.js';
import { sleep, until } from '../support/until.js';

const NodeName = 'worker-0';
const Good = 'rendered-worker-good';

const unitContents =
  '[Unit]\n[Service]\nExecStart=/usr/bin/true\n[Install]\nWantedBy=multi-user.target\n';

/** Each hostile config: its Ignition part, and the reason admission and the daemon give. */
const Hostile: readonly {
  name: string;
  config: Omit<IgnitionConfig, 'ignition'>;
  reason: string;
}[] = [
  {
    name: 'rendered-worker-evil-dropin',
    config: {
      systemd: {
        units: [
          {
            name: 'kubelet.service',
            dropins: [{ name: '../../../../../../../../srv/evil.conf', contents: '[Service]\n' }],
          },
        ],
      },
    },
    reason:
      'invalid systemd drop-in name "../../../../../../../../srv/evil.conf" of unit "kubelet.service": must not contain "/"',
  },
  {
    name: 'rendered-worker-evil-unit',
    config: {
      systemd: {
        units: [{ name: 'a/../../../../srv/x.service', enabled: true, contents: unitContents }],
      },
    },
    reason: 'invalid systemd unit name "a/../../../../srv/x.service": must not contain "/"',
  },
  {
    name: 'rendered-worker-evil-sentinel',
    config: {
      systemd: {
        units: [
          {
            name: 'crio.service',
            dropins: [{ name: '../../../../../../../../../sentinel/etc/evil.conf', contents: '' }],
          },
        ],
      },
    },
    reason:
      'invalid systemd drop-in name "../../../../../../../../../sentinel/etc/evil.conf" of unit "crio.service": must not contain "/"',
  },
  {
    name: 'rendered-worker-evil-dotdot',
    config: { systemd: { units: [{ name: 'x..service', contents: unitContents }] } },
    reason: 'invalid systemd unit name "x..service": must not contain ".."',
  },
];

const machineConfig = (name: string, config: Omit<IgnitionConfig, 'ignition'>): MachineConfig =>
  mc(name, config, { osImageURL: HostileOsImage });

const generatedConfig = (name: string, bad: BadPart): MachineConfig => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfig',
  metadata: { name },
  spec: { osImageURL: HostileOsImage, config: hostileIgnition([], bad) },
});

/** A config written past admission, and the reason the daemon must refuse it with. */
interface PastAdmission {
  readonly name: string;
  readonly config: MachineConfig;
  readonly reason: string | RegExp;
}

/** Two generated bad parts of each kind, the same on every run. */
function generatedSample(sentinel: string): BadPart[] {
  const all = fc.sample(badPart(sentinel), { numRuns: 400, seed: 20261205 });
  return (Object.keys(Refusals) as BadPart['kind'][]).flatMap((kind) =>
    all.filter((b) => b.kind === kind).slice(0, 2),
  );
}

async function refusedAtAdmission(name: string, config: MachineConfig): Promise<StatusError> {
  const refused = await admin.create(Resources.machineConfig, config).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(refused, name).toBeInstanceOf(StatusError);
  const status = refused as StatusError;
  expect(status.code).toBe(422);
  expect(status.message).toContain(
    `MachineConfig.machineconfiguration.openshift.io "${name}" is invalid: `,
  );
  return status;
}

let server: ApiServerHandle;
let admin: HttpsResourceClient;
let layout: HostileLayout;
let daemon: McoProcess | undefined;
let drainer: AbortController | undefined;

const getNode = () => admin.get<Node>(Resources.node, NodeName);

/** The drain controller's part: grant every drain or uncordon the daemon asks for. */
async function drainController(signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const a = (await getNode()).metadata.annotations ?? {};
      const want = a[Annotation.desiredDrain];
      if (want !== undefined && want !== a[Annotation.lastAppliedDrain])
        await admin.patch(
          Resources.node,
          NodeName,
          {
            metadata: { annotations: { [Annotation.lastAppliedDrain]: want } },
            spec: { unschedulable: want.startsWith('drain-') },
          },
          'merge',
        );
    } catch {
      // the next round retries (the server restarts in the middle of this test)
    }
    await sleep(50);
  }
}

async function target(name: string): Promise<void> {
  await admin.patch(
    Resources.node,
    NodeName,
    { metadata: { annotations: { [Annotation.desiredConfig]: name } } },
    'merge',
  );
}

function annotationsWhen(
  what: string,
  test: (a: Readonly<Record<string, string>>) => boolean,
  timeoutMs = 90_000,
) {
  return until(
    what,
    async () => {
      const a = (await getNode()).metadata.annotations ?? {};
      return test(a) ? a : undefined;
    },
    timeoutMs,
  );
}

beforeAll(async () => {
  layout = makeHostileLayout('mco-hostile-box-');
  const root = layout.root;
  prepareOstreeRoot(layout);
  // links planted where the hostile names would climb to: a leak would land in the sentinel
  symlinkSync(layout.sentinel, join(root, 'srv'));
  symlinkSync('../../../../../../sentinel', join(root, 'etc/systemd/system/kubelet.service.d'));
  writeFileSync(
    join(root, 'etc/machine-config-daemon/node-annotations.json'),
    JSON.stringify({
      [Annotation.currentConfig]: Good,
      [Annotation.desiredConfig]: Good,
      [Annotation.state]: 'Done',
    }),
  );

  server = await startApiServerProcess({ storage: 'sqlite' });
  admin = HttpsResourceClient.fromKubeconfig(server.kubeconfigPath);
  await admin.create(Resources.machineConfig, machineConfig(Good, {}));
  await admin.create<Node>(Resources.node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NodeName, labels: { 'node-role.kubernetes.io/worker': '' } },
    spec: {},
  });
  await admin.create<MachineConfigNode>(Resources.machineConfigNode, {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigNode',
    metadata: { name: NodeName },
    spec: { node: { name: NodeName }, pool: { name: 'worker' }, configVersion: { desired: Good } },
  });
}, 120_000);

afterAll(async () => {
  drainer?.abort();
  await daemon?.stop('SIGTERM');
  admin?.close();
  await server?.dispose();
  layout?.dir.remove();
}, 60_000);

describe('hostile MachineConfigs in the cluster in a box', () => {
  it.each(Hostile)('admission refuses $name with the reason', async ({ name, config, reason }) => {
    const status = await refusedAtAdmission(name, machineConfig(name, config));
    expect(status.message).toContain(reason);
  });

  it('admission refuses every generated hostile config with the reason', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(badPart(layout.sentinel), async (bad) => {
        const name = `rendered-worker-generated-${String(n++)}`;
        const status = await refusedAtAdmission(name, generatedConfig(name, bad));
        expect(status.message, JSON.stringify(bad)).toMatch(Refusals[bad.kind]);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it('written past admission, each is refused by the daemon: Degraded with the reason, the node untouched', async () => {
    // what a real API server would hold: the objects as given, straight into storage
    const pastAdmission: PastAdmission[] = [
      ...Hostile.map((h) => ({
        name: h.name,
        config: machineConfig(h.name, h.config),
        reason: h.reason,
      })),
      ...generatedSample(layout.sentinel).map((bad, i) => {
        const name = `rendered-worker-generated-${bad.kind}-${String(i)}`;
        return { name, config: generatedConfig(name, bad), reason: Refusals[bad.kind] };
      }),
    ];
    await server.stop();
    const storage = await SqliteStorage.open(join(server.dataDir, 'state.db'));
    for (const [i, h] of pastAdmission.entries()) {
      const mc = h.config;
      const name = h.name;
      await storage.create(
        `/registry/machineconfiguration.openshift.io/machineconfigs/${name}`,
        encodeObject({
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfig',
          spec: mc.spec,
          metadata: {
            ...mc.metadata,
            uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
            generation: 1,
            creationTimestamp: '2024-01-01T00:00:00Z',
          },
        }),
      );
    }
    await storage.close();
    await server.restart();
    admin.close();
    admin = HttpsResourceClient.fromKubeconfig(server.kubeconfigPath);
    for (const { name } of pastAdmission)
      expect((await admin.get<MachineConfig>(Resources.machineConfig, name)).metadata.name).toBe(
        name,
      );

    // As upstream's DaemonSet: reads as machine-config-daemon, writes its Node with the kubelet's
    // kubeconfig on the node.
    mkdirSync(join(layout.root, dirname(KubeletKubeconfigPath)), { recursive: true });
    writeFileSync(
      join(layout.root, KubeletKubeconfigPath),
      await issueNodeKubeconfig({ dataDir: server.dataDir, node: NodeName, now: Date.now() }),
    );
    drainer = new AbortController();
    void drainController(drainer.signal);
    daemon = new McoProcess('daemon', [
      'daemon',
      '--node',
      NodeName,
      '--root',
      layout.root,
      '--kubeconfig',
      server.kubeconfig('daemon'),
      '--node-kubeconfig',
      KubeletKubeconfigPath,
      '--host',
      'ostree',
    ]);
    await annotationsWhen(
      `Done on ${Good}`,
      (a) =>
        a[Annotation.state] === 'Done' &&
        a[Annotation.reason] === '' &&
        a[Annotation.currentConfig] === Good,
    ).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${daemon?.output() ?? ''}`);
    });

    const snapshot = (): { root: TreeSnapshot; outside: TreeSnapshot } => ({
      root: snapshotTree(layout.root),
      outside: snapshotOutside(layout, []),
    });
    const before = snapshot();
    // A generated reason need not name its config (Ignition's own parse errors do not), so the
    // node goes back to Done between those cases: a Degraded seen next is the next case's.
    const refusal = (name: string, reason: string | RegExp) => (text: string | undefined) =>
      typeof reason === 'string'
        ? text === `refusing to apply config ${name}: ${reason}`
        : reason.test(text ?? '');
    for (const { name, reason } of pastAdmission) {
      const refused = refusal(name, reason);
      let unchanged = before;
      if (typeof reason !== 'string') {
        await target(Good);
        await annotationsWhen(
          `Done on ${Good} before ${name}`,
          (a) => a[Annotation.state] === 'Done' && a[Annotation.reason] === '',
        );
        // (being Done again rewrites the daemon's own records in the root; nothing outside it)
        unchanged = snapshot();
        expect(unchanged.outside, name).toEqual(before.outside);
      }
      await target(name);
      const a = await annotationsWhen(
        `Degraded refusing ${name}`,
        (x) => x[Annotation.state] === 'Degraded' && refused(x[Annotation.reason]),
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}\n${daemon?.output() ?? ''}`);
      });
      expect(a[Annotation.currentConfig]).toBe(Good);
      expect(snapshot(), name).toEqual(unchanged);
    }
    const mcn = await admin.get<MachineConfigNode>(Resources.machineConfigNode, NodeName);
    const last = pastAdmission.at(-1) as PastAdmission;
    expect(mcn.status?.conditions?.find((c) => c.type === 'NodeDegraded')?.message).toMatch(
      last.reason,
    );

    // pointed back at its config, the node recovers
    await target(Good);
    await annotationsWhen(
      `Done on ${Good} again`,
      (a) => a[Annotation.state] === 'Done' && a[Annotation.reason] === '',
    );
    expect(snapshotOutside(layout, [])).toEqual(before.outside);
    expect(daemon.running).toBe(true);
  }, 600_000);
});
