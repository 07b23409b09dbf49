/**
 * `mco render --explain -o json`: what a running node on --current does for the rendered result,
 * on the node disruption policy path (docs/reference/node-disruption.md §5–6): the cluster
 * defaults (docs/reference/node-disruption.md §2), merged with a MachineConfiguration's spec
 * (docs/reference/node-disruption.md §3); any OS-level change reboots; a file needs a policy for it
 * or a parent folder, else Reboot; units likewise; SSH keys follow the sshkey policy (None by
 * default); Special (registries.conf) drains only for an unsafe change
 * (docs/reference/daemon.md §7.5); Reboot and Drain drain.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ign, mc } from '../../test/support/machine-configs.js';
import { makeTmpDir } from '../../test/support/tmp-dir.js';
import { runRender } from './render-command.js';

const tmp = makeTmpDir('mco-explain-');
afterAll(() => {
  tmp.remove();
});

let counter = 0;
function write(objects: readonly unknown[]): string {
  counter += 1;
  return tmp.write(
    `case-${counter}.json`,
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  );
}

const data = (text: string) => `data:,${encodeURIComponent(text)}`;
const file = (path: string, text: string) => ({
  path,
  mode: 0o644,
  contents: { source: data(text) },
});
const Base = 'quay.io/openshift/os@sha256:1111';

interface Sections {
  readonly files?: readonly ReturnType<typeof file>[];
  readonly units?: readonly Record<string, unknown>[];
  readonly sshKey?: string;
  readonly kernelArguments?: readonly string[];
  readonly osImageURL?: string;
}

function config(s: Sections) {
  return mc('50-worker-explain', 'worker', {
    config: ign({
      ...(s.files === undefined ? {} : { storage: { files: s.files } }),
      ...(s.units === undefined ? {} : { systemd: { units: s.units } }),
      ...(s.sshKey === undefined
        ? {}
        : { passwd: { users: [{ name: 'core', sshAuthorizedKeys: [s.sshKey] }] } }),
    }),
    ...(s.kernelArguments === undefined ? {} : { kernelArguments: [...s.kernelArguments] }),
    ...(s.osImageURL === undefined ? {} : { osImageURL: s.osImageURL }),
  });
}

const base = mc('00-worker', 'worker', { config: ign() });

function currentFile(s: Sections): string {
  const json = runRender({ pool: 'worker', baseOsImage: Base, output: 'json' }, [
    write([base, config(s)]),
  ]);
  return tmp.write(`current-${++counter}.json`, json);
}

interface Explained {
  readonly renderedName: string;
  readonly actions: readonly string[];
  readonly drain: boolean;
  readonly reboot: boolean;
  readonly changedPaths: readonly string[];
  readonly changedUnits: readonly string[];
  readonly kernelArguments: { from: string[]; to: string[] } | null;
  readonly osImage: { from: string; to: string } | null;
}

function explain(from: Sections, to: Sections, policies?: Record<string, unknown>): Explained {
  const machineConfiguration =
    policies === undefined
      ? undefined
      : write([
          {
            apiVersion: 'operator.openshift.io/v1',
            kind: 'MachineConfiguration',
            metadata: { name: 'cluster' },
            spec: { managementState: 'Managed', nodeDisruptionPolicy: policies },
          },
        ]);
  const out = runRender(
    {
      pool: 'worker',
      baseOsImage: Base,
      current: currentFile(from),
      explain: true,
      ...(machineConfiguration === undefined ? {} : { machineConfiguration }),
      output: 'json',
    },
    [write([base, config(to)])],
  );
  return JSON.parse(out) as Explained;
}

const FooUnit = '[Service]\nExecStart=/usr/bin/true\n[Install]\nWantedBy=multi-user.target\n';
const Registries = (mirror: string) =>
  [
    'unqualified-search-registries = ["registry.example.com"]',
    '[[registry]]',
    'location = "quay.io/openshift"',
    'mirror-by-digest-only = true',
    '[[registry.mirror]]',
    `location = "${mirror}"`,
    'pull-from-mirror = "digest-only"',
    '',
  ].join('\n');
const RegistriesConf = '/etc/containers/registries.conf';

type Row = readonly [
  name: string,
  from: Sections,
  to: Sections,
  expected: Pick<Explained, 'actions' | 'drain' | 'reboot' | 'changedPaths'>,
  policies?: Record<string, unknown>,
];

const rows: readonly Row[] = [
  [
    'nothing changes',
    { files: [file('/etc/a.conf', 'a')] },
    { files: [file('/etc/a.conf', 'a')] },
    { actions: ['None'], drain: false, reboot: false, changedPaths: [] },
  ],
  [
    'a file without a policy reboots and drains',
    { files: [file('/etc/a.conf', 'a')] },
    { files: [file('/etc/a.conf', 'b')] },
    { actions: ['Reboot'], drain: true, reboot: true, changedPaths: ['/etc/a.conf'] },
  ],
  [
    'policy.json reloads crio, no drain',
    {},
    { files: [file('/etc/containers/policy.json', '{}')] },
    {
      actions: ['Reload crio.service'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/containers/policy.json'],
    },
  ],
  [
    'two files under crio policies: one action each, in path order, duplicates kept',
    {},
    {
      files: [
        file('/etc/containers/registries.d/b.yaml', 'b'),
        file('/etc/containers/policy.json', '{}'),
      ],
    },
    {
      actions: ['Reload crio.service', 'Reload crio.service'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/containers/policy.json', '/etc/containers/registries.d/b.yaml'],
    },
  ],
  [
    'the user CA bundle restarts update-ca-trust, then crio',
    {},
    { files: [file('/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt', 'x')] },
    {
      actions: ['Restart coreos-update-ca-trust.service', 'Restart crio.service'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt'],
    },
  ],
  [
    'registries.conf, a registry added whose mirror pulls by digest only: Special, no drain',
    { files: [file(RegistriesConf, 'unqualified-search-registries = ["registry.example.com"]\n')] },
    { files: [file(RegistriesConf, Registries('mirror.example.com/openshift'))] },
    { actions: ['Special'], drain: false, reboot: false, changedPaths: [RegistriesConf] },
  ],
  [
    'registries.conf, that registry removed: Special, drain',
    { files: [file(RegistriesConf, Registries('mirror.example.com/openshift'))] },
    { files: [file(RegistriesConf, 'unqualified-search-registries = ["registry.example.com"]\n')] },
    { actions: ['Special'], drain: true, reboot: false, changedPaths: [RegistriesConf] },
  ],
  [
    'an SSH key: None',
    { sshKey: 'ssh-ed25519 AAAA one' },
    { sshKey: 'ssh-ed25519 AAAA two' },
    { actions: ['None'], drain: false, reboot: false, changedPaths: [] },
  ],
  [
    'an SSH key with a user sshkey policy of Drain: drain without reboot',
    { sshKey: 'ssh-ed25519 AAAA one' },
    { sshKey: 'ssh-ed25519 AAAA two' },
    { actions: ['Drain'], drain: true, reboot: false, changedPaths: [] },
    { sshkey: { actions: [{ type: 'Drain' }] } },
  ],
  [
    'a unit without a policy reboots',
    {},
    { units: [{ name: 'foo.service', enabled: true, contents: FooUnit }] },
    { actions: ['Reboot'], drain: true, reboot: true, changedPaths: [] },
  ],
  [
    'a user file policy and a unit policy: Restart foo.service, DaemonReload',
    {},
    {
      files: [file('/etc/foo/foo.conf', 'x')],
      units: [{ name: 'foo.service', enabled: true, contents: FooUnit }],
    },
    {
      actions: ['Restart foo.service', 'DaemonReload'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/foo/foo.conf'],
    },
    {
      files: [
        {
          path: '/etc/foo',
          actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
        },
      ],
      units: [{ name: 'foo.service', actions: [{ type: 'DaemonReload' }] }],
    },
  ],
  [
    'a user policy replaces a default: policy.json None',
    {},
    { files: [file('/etc/containers/policy.json', '{}')] },
    {
      actions: ['None'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/containers/policy.json'],
    },
    { files: [{ path: '/etc/containers/policy.json', actions: [{ type: 'None' }] }] },
  ],
  [
    'a kernel argument reboots whatever the file policies say',
    { files: [file('/etc/containers/policy.json', '{}')] },
    { files: [file('/etc/containers/policy.json', '{"x":1}')], kernelArguments: ['nosmt'] },
    {
      actions: ['Reboot'],
      drain: true,
      reboot: true,
      changedPaths: ['/etc/containers/policy.json'],
    },
  ],
  [
    'an OS image reboots',
    {},
    { osImageURL: 'quay.io/openshift/os@sha256:2222' },
    { actions: ['Reboot'], drain: true, reboot: true, changedPaths: [] },
  ],
];

describe('mco render --explain -o json: the policy path (docs/reference/node-disruption.md §5–6)', () => {
  for (const [name, from, to, expected, policies] of rows)
    it(name, () => {
      const got = explain(from, to, policies);
      expect(got.renderedName).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
      expect({
        actions: got.actions,
        drain: got.drain,
        reboot: got.reboot,
        changedPaths: got.changedPaths,
      }).toEqual(expected);
    });

  it('names the kernel arguments and the OS image that change', () => {
    const k = explain({}, { kernelArguments: ['nosmt', 'a=b'] });
    expect(k.kernelArguments).toEqual({ from: [], to: ['nosmt', 'a=b'] });
    const o = explain({}, { osImageURL: 'quay.io/openshift/os@sha256:2222' });
    expect(o.osImage).toEqual({ from: Base, to: 'quay.io/openshift/os@sha256:2222' });
    const u = explain({}, { units: [{ name: 'foo.service', enabled: true, contents: FooUnit }] });
    expect(u.changedUnits).toEqual(['foo.service']);
  });

  it('text: the rendered name, then the plan', () => {
    const out = runRender(
      {
        pool: 'worker',
        baseOsImage: Base,
        current: currentFile({}),
        explain: true,
        output: 'yaml',
      },
      [write([base, config({ files: [file('/etc/containers/policy.json', '{}')] })])],
    );
    const [name, ...rest] = out.split('\n');
    expect(name).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
    expect(rest.join('\n')).toContain('the node will reload crio.service');
    expect(rest.join('\n')).toContain('drain: no');
  });

  it('not reconcilable: upstream’s message, nothing printed', () => {
    expect(() =>
      runRender(
        {
          pool: 'worker',
          baseOsImage: Base,
          current: currentFile({}),
          explain: true,
          output: 'json',
        },
        [
          write([
            base,
            mc('99-disks', 'worker', {
              config: ign({ storage: { disks: [{ device: '/dev/vdb' }] } }),
            }),
          ]),
        ],
      ),
    ).toThrow(/ignition disks section contains changes/);
  });

  it('--explain needs --current', () => {
    expect(() =>
      runRender({ pool: 'worker', baseOsImage: Base, explain: true, output: 'json' }, [
        write([base]),
      ]),
    ).toThrow('--explain needs --current');
  });
});
