import { describe, expect, it } from 'vitest';
import type { CrdInfo } from '../../api/apiextensions/v1/custom-resource-definition.js';
import {
  KubeletConfigCrd,
  MachineConfigCrd,
  MachineConfigPoolCrd,
} from '../../api/machineconfiguration/v1/crd-info.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { goPrint } from './go-print.js';
import { buildTable, cellFor, printerFor } from './table.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

const now = Date.parse('2026-11-29T12:00:00Z');
const v1 = { apiVersion: 'meta.k8s.io/v1', includeObject: 'Metadata', nowMs: now } as const;

function crdType(info: CrdInfo): ResourceType {
  return {
    group: info.group,
    version: info.version,
    kind: info.kind,
    listKind: info.listKind,
    plural: info.plural,
    singular: info.singular,
    namespaced: info.scope === 'Namespaced',
    shortNames: info.shortNames,
    categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: info.hasStatusSubresource ? ['status'] : [],
    builtIn: false,
    schema: {},
    printerColumns: info.additionalPrinterColumns,
  };
}

function builtIn(group: string, kind: string): ResourceType {
  return {
    ...crdType(MachineConfigCrd),
    group,
    version: 'v1',
    kind,
    builtIn: true,
    printerColumns: [],
  };
}

const worker: KubeObject = {
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfigPool',
  metadata: {
    name: 'worker',
    uid: 'u1',
    resourceVersion: '116',
    creationTimestamp: '2026-11-29T07:00:00Z',
    generation: 1,
  },
  spec: {},
  status: {
    configuration: { name: 'rendered-worker-abc123' },
    conditions: [
      { type: 'Updated', status: 'True' },
      { type: 'Updating', status: 'False' },
      { type: 'Degraded', status: 'False' },
    ],
    machineCount: 2,
    readyMachineCount: 2,
    updatedMachineCount: 2,
    degradedMachineCount: 0,
  },
};

describe('MachineConfigPool table', () => {
  const table = buildTable(
    printerFor(crdType(MachineConfigPoolCrd)),
    [worker],
    { resourceVersion: '119' },
    v1,
  );

  it('has the oc get mcp columns, Name formatted as a name', () => {
    expect(table.columnDefinitions?.map((c) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Config', 'string', ''],
      ['Updated', 'string', ''],
      ['Updating', 'string', ''],
      ['Degraded', 'string', ''],
      ['MachineCount', 'number', ''],
      ['ReadyMachineCount', 'number', ''],
      ['UpdatedMachineCount', 'number', ''],
      ['DegradedMachineCount', 'number', ''],
      ['Age', 'date', ''],
    ]);
    expect(table.columnDefinitions?.[2]?.description).toBe(
      'When all the machines in the pool are updated to the correct machine config.',
    );
  });

  it('evaluates every column server-side', () => {
    expect(table).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '119' },
    });
    expect(table.rows[0]?.cells).toEqual([
      'worker',
      'rendered-worker-abc123',
      'True',
      'False',
      'False',
      2,
      2,
      2,
      0,
      '5h',
    ]);
  });

  it('attaches PartialObjectMetadata by default', () => {
    expect(table.rows[0]?.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: worker.metadata,
    });
  });

  it('attaches the full object for includeObject=Object and nothing for None', () => {
    const full = buildTable(
      printerFor(crdType(MachineConfigPoolCrd)),
      [worker],
      {},
      { ...v1, includeObject: 'Object' },
    );
    expect(full.rows[0]?.object).toBe(worker);
    const none = buildTable(
      printerFor(crdType(MachineConfigPoolCrd)),
      [worker],
      {},
      { ...v1, includeObject: 'None' },
    );
    expect(none.rows[0] && Object.keys(none.rows[0])).toEqual(['cells']);
  });

  it('leaves cells of a fresh pool without status empty', () => {
    const fresh: KubeObject = {
      ...worker,
      status: undefined,
      metadata: { name: 'infra', creationTimestamp: '2026-11-29T11:59:50Z' },
    };
    const t = buildTable(printerFor(crdType(MachineConfigPoolCrd)), [fresh], {}, v1);
    expect(t.rows[0]?.cells).toEqual([
      'infra',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      '10s',
    ]);
  });
});

describe('MachineConfig table', () => {
  it('reads the escaped-dot annotation and the Ignition version', () => {
    const mc: KubeObject = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: {
        name: 'rendered-worker-abc',
        creationTimestamp: '2026-11-27T12:00:00Z',
        annotations: {
          'machineconfiguration.openshift.io/generated-by-controller-version': 'v4.18.0',
        },
      },
      spec: { config: { ignition: { version: GeneratedSpecVersion } } },
    };
    const user: KubeObject = {
      ...mc,
      metadata: { name: '99-ssh', creationTimestamp: '2026-11-29T11:00:00Z' },
      spec: {},
    };
    const t = buildTable(
      printerFor(crdType(MachineConfigCrd)),
      [mc, user],
      { resourceVersion: '7' },
      v1,
    );
    expect(t.columnDefinitions?.map((c) => c.name)).toEqual([
      'Name',
      'GeneratedByController',
      'IgnitionVersion',
      'Age',
    ]);
    expect(t.rows.map((r) => r.cells)).toEqual([
      ['rendered-worker-abc', 'v4.18.0', GeneratedSpecVersion, '2d'],
      ['99-ssh', null, null, '60m'],
    ]);
  });
});

describe('a CRD without printer columns', () => {
  it('prints Name and Age', () => {
    const kc: KubeObject = {
      apiVersion: 'x',
      kind: 'KubeletConfig',
      metadata: { name: 'max-pods', creationTimestamp: '2026-11-29T11:58:00Z' },
    };
    const t = buildTable(printerFor(crdType(KubeletConfigCrd)), [kc], {}, v1);
    expect(t.columnDefinitions?.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(t.rows[0]?.cells).toEqual(['max-pods', '2m']);
  });
});

describe('Node table', () => {
  const node = (
    labels: Record<string, string>,
    status: unknown,
    spec: unknown = {},
  ): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', labels, creationTimestamp: '2026-11-28T12:00:00Z' },
    spec,
    status,
  });
  const printer = printerFor(builtIn('', 'Node'));

  it('has the kubectl get nodes columns', () => {
    expect(printer.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Status', 0],
      ['Roles', 0],
      ['Age', 0],
      ['Version', 0],
      ['Internal-IP', 1],
      ['External-IP', 1],
      ['OS-Image', 1],
      ['Kernel-Version', 1],
      ['Container-Runtime', 1],
    ]);
  });

  it.each<[string, KubeObject, unknown[]]>([
    [
      'a ready worker',
      node(
        { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/hostname': 'n1' },
        {
          conditions: [
            { type: 'MemoryPressure', status: 'False' },
            { type: 'Ready', status: 'True' },
          ],
          nodeInfo: {
            kubeletVersion: 'v1.32.5',
            osImage: 'RHCOS',
            kernelVersion: '5.14',
            containerRuntimeVersion: 'cri-o://1.32',
          },
          addresses: [
            { type: 'Hostname', address: 'n1' },
            { type: 'InternalIP', address: '10.0.0.5' },
          ],
        },
      ),
      [
        'n1',
        'Ready',
        'worker',
        '24h',
        'v1.32.5',
        '10.0.0.5',
        '<none>',
        'RHCOS',
        '5.14',
        'cri-o://1.32',
      ],
    ],
    [
      'a cordoned master with two roles',
      node(
        { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '' },
        {
          conditions: [{ type: 'Ready', status: 'False' }],
          addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }],
        },
        { unschedulable: true },
      ),
      [
        'n1',
        'NotReady,SchedulingDisabled',
        'control-plane,master',
        '24h',
        '',
        '<none>',
        '1.2.3.4',
        '<unknown>',
        '<unknown>',
        '<unknown>',
      ],
    ],
    [
      'a node without conditions or roles',
      node({ 'kubernetes.io/role': 'infra' }, {}),
      [
        'n1',
        'Unknown',
        'infra',
        '24h',
        '',
        '<none>',
        '<none>',
        '<unknown>',
        '<unknown>',
        '<unknown>',
      ],
    ],
  ])('prints %s', (_, n, cells) => {
    expect(printer.row(n, now).cells).toEqual(cells);
  });
});

describe('Pod table', () => {
  const printer = printerFor(builtIn('', 'Pod'));
  const pod = (
    spec: unknown,
    status: unknown,
    meta: Partial<KubeObject['metadata']> = {},
  ): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      namespace: 'default',
      creationTimestamp: '2026-11-29T11:00:00Z',
      ...meta,
    },
    spec,
    status,
  });
  const running = { running: { startedAt: '2026-11-29T11:00:05Z' } };

  it.each<[string, KubeObject, unknown[]]>([
    [
      'a running pod',
      pod(
        { nodeName: 'n1', containers: [{ name: 'a' }] },
        {
          phase: 'Running',
          podIPs: [{ ip: '10.128.0.7' }],
          containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: running }],
        },
      ),
      ['web', '1/1', 'Running', '0', '60m', '10.128.0.7', 'n1', '<none>', '<none>'],
    ],
    [
      'a pending pod',
      pod({ containers: [{ name: 'a' }, { name: 'b' }] }, { phase: 'Pending' }),
      ['web', '0/2', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a crash-looping pod',
      pod(
        { nodeName: 'n1', containers: [{ name: 'a' }] },
        {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'a',
              ready: false,
              restartCount: 4,
              state: { waiting: { reason: 'CrashLoopBackOff' } },
              lastState: { terminated: { exitCode: 1, finishedAt: '2026-11-29T11:58:00Z' } },
            },
          ],
        },
      ),
      ['web', '0/1', 'CrashLoopBackOff', '4 (2m ago)', '60m', '<none>', 'n1', '<none>', '<none>'],
    ],
    [
      'a pod waiting on its init container',
      pod(
        { initContainers: [{ name: 'init' }], containers: [{ name: 'a' }] },
        {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'init', ready: false, restartCount: 0, state: { running: {} } },
          ],
        },
      ),
      ['web', '0/1', 'Init:0/1', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a terminating pod',
      pod(
        { containers: [{ name: 'a' }] },
        {
          phase: 'Running',
          containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: running }],
        },
        { deletionTimestamp: '2026-11-29T11:59:00Z' },
      ),
      ['web', '1/1', 'Terminating', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a pod with readiness gates',
      pod(
        {
          containers: [{ name: 'a' }],
          readinessGates: [{ conditionType: 'x' }, { conditionType: 'y' }],
        },
        { phase: 'Running', conditions: [{ type: 'x', status: 'True' }] },
      ),
      ['web', '0/1', 'Running', '0', '60m', '<none>', '<none>', '<none>', '1/2'],
    ],
  ])('prints %s', (_, p, cells) => {
    expect(printer.row(p, now).cells).toEqual(cells);
  });

  it('marks a succeeded pod Completed', () => {
    const done = pod(
      { containers: [{ name: 'a' }] },
      {
        phase: 'Succeeded',
        containerStatuses: [
          {
            name: 'a',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
        ],
      },
    );
    expect(printer.row(done, now)).toEqual({
      cells: ['web', '0/1', 'Completed', '0', '60m', '<none>', '<none>', '<none>', '<none>'],
      conditions: [
        {
          type: 'Completed',
          status: 'True',
          reason: 'Succeeded',
          message: 'The pod has completed successfully.',
        },
      ],
    });
  });
});

describe('other built-in printers', () => {
  const base = { metadata: { name: 'x', creationTimestamp: '2026-11-29T11:59:00Z' } };
  it.each<[string, string, Record<string, unknown>, unknown[]]>([
    ['', 'Namespace', { status: { phase: 'Terminating' } }, ['x', 'Terminating', '60s']],
    ['', 'Namespace', {}, ['x', 'Active', '60s']],
    ['coordination.k8s.io', 'Lease', { spec: { holderIdentity: 'n1' } }, ['x', 'n1', '60s']],
    ['', 'ConfigMap', { data: { a: '1', b: '2' }, binaryData: { c: '' } }, ['x', 3, '60s']],
    ['', 'Secret', { type: 'Opaque', data: { a: 'MQ==' } }, ['x', 'Opaque', 1, '60s']],
    [
      'policy',
      'PodDisruptionBudget',
      { spec: { minAvailable: 1 }, status: { disruptionsAllowed: 0 } },
      ['x', '1', 'N/A', 0, '60s'],
    ],
    [
      'apps',
      'DaemonSet',
      {
        spec: {
          selector: { matchLabels: { app: 'mcd' } },
          template: {
            spec: {
              nodeSelector: { 'kubernetes.io/os': 'linux' },
              containers: [
                { name: 'mcd', image: 'mco:1' },
                { name: 'proxy', image: 'rbac:2' },
              ],
            },
          },
        },
        status: {
          desiredNumberScheduled: 3,
          currentNumberScheduled: 3,
          numberReady: 2,
          updatedNumberScheduled: 3,
          numberAvailable: 2,
        },
      },
      ['x', 3, 3, 2, 3, 2, 'kubernetes.io/os=linux', '60s', 'mcd,proxy', 'mco:1,rbac:2', 'app=mcd'],
    ],
  ])('%s %s', (group, kind, fields, cells) => {
    const o = { apiVersion: 'v1', kind, ...base, ...fields } as KubeObject;
    expect(printerFor(builtIn(group, kind)).row(o, now).cells).toEqual(cells);
  });

  it('prints an event as kubectl get events does, Name last and wide', () => {
    const printer = printerFor(builtIn('', 'Event'));
    expect(printer.columns.map((c) => c.name)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ]);
    expect(printer.columns[9]).toMatchObject({ format: 'name', priority: 1 });
    const ev = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'worker.1', namespace: 'default' },
      involvedObject: { kind: 'MachineConfigPool', name: 'worker' },
      reason: 'SetDesiredConfig',
      message: ' Targeted node n1 \n',
      type: 'Normal',
      source: { component: 'machineconfigcontroller-nodecontroller' },
      firstTimestamp: '2026-11-29T11:00:00Z',
      lastTimestamp: '2026-11-29T11:55:00Z',
      count: 3,
    } as KubeObject;
    expect(printer.row(ev, now).cells).toEqual([
      '5m',
      'Normal',
      'SetDesiredConfig',
      'machineconfigpool/worker',
      '',
      'machineconfigcontroller-nodecontroller',
      'Targeted node n1',
      '60m',
      3,
      'worker.1',
    ]);
  });
});

describe('cellFor', () => {
  it.each<[Parameters<typeof cellFor>[0], unknown, unknown]>([
    ['string', 'abc', 'abc'],
    ['string', 3, '3'],
    ['string', 1.5, '1.5'],
    ['string', 1234567.5, '1.2345675e+06'],
    ['string', 0.00001, '1e-05'],
    ['string', true, 'true'],
    ['string', { b: 1, a: [1, 'x'] }, '{"a":[1,"x"],"b":1}'],
    ['string', null, '<no value>'],
    ['integer', 2.9, 2],
    ['integer', '2', null],
    ['number', 2.5, 2.5],
    ['boolean', false, false],
    ['boolean', 'true', null],
    ['date', '2026-11-29T11:00:00Z', '60m'],
    ['date', 'yesterday', '<invalid>'],
    ['date', 5, null],
    ['number', null, null],
  ])('%s %j is %j', (type, value, cell) => {
    expect(cellFor(type, value, now)).toEqual(cell);
  });

  it('prints like fmt.Print', () => {
    expect(goPrint(1e21)).toBe('1e+21');
    expect(goPrint(-0.5)).toBe('-0.5');
    expect(goPrint(123456.25)).toBe('123456.25');
  });
});
