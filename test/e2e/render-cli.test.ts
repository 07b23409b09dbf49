/**
 * `mco render` as a user runs it: the built binary, real files, exit codes, stdout and stderr.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { translateDown } from '../../src/ignition/translate-down.js';
import { parseIgnition } from '../../src/ignition/parse.js';
import { serializeIgnition } from '../../src/ignition/serialize.js';
import type { IgnitionConfig } from '../../src/ignition/types.js';
import { ign, mc, pool } from '../support/machine-configs.js';
import { renderVector, RenderVectors } from '../support/render-vectors.js';
import { runMco } from '../support/run-mco.js';
import { makeTmpDir } from '../support/tmp-dir.js';

const tmp = makeTmpDir('mco-render-');
afterAll(() => {
  tmp.remove();
});

let counter = 0;
function writeObjects(objects: readonly unknown[], indent: number | string = 2): string {
  counter += 1;
  return tmp.write(
    `case-${counter}.json`,
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, indent),
  );
}

/** Every successful render's arguments, re-rendered as JSON for ignition-validate at the end. */
const emitted: string[][] = [];

function renderName(args: readonly string[]): string {
  emitted.push([...args]);
  const r = runMco(['render', ...args, '-o', 'name']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

const file = (path: string, source: string, extra: Record<string, unknown> = {}) => ({
  path,
  contents: { source },
  ...extra,
});

describe('mco render -o name: upstream vectors A', () => {
  // master and worker are the pools `mco render` knows without a MachineConfigPool among the
  // inputs; a custom pool comes with its own.
  it.each(RenderVectors)('$id', (v) => {
    const images = [
      ...(v.baseOSImage === '' ? [] : ['--base-os-image', v.baseOSImage]),
      ...(v.extensionsImage === '' ? [] : ['--base-extensions-image', v.extensionsImage]),
    ];
    const poolName = v.pool.metadata.name ?? '';
    const builtIn = poolName === 'master' || poolName === 'worker';
    const inputs = builtIn ? v.configs : [...v.configs, v.pool];
    expect(renderName(['--pool', poolName, ...images, writeObjects(inputs)])).toBe(v.name);
  });

  it('A3 with the custom pool in --pool-file', () => {
    const a3 = renderVector('A3');
    expect(
      renderName([
        '--pool',
        'infra',
        '--pool-file',
        writeObjects([a3.pool]),
        writeObjects(a3.configs),
      ]),
    ).toBe(a3.name);
  });

  it('A4 with base images from a ControllerConfig file', () => {
    const a4 = renderVector('A4');
    const cc = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: { name: 'machine-config-controller' },
      spec: {
        baseOSContainerImage: a4.baseOSImage,
        baseOSExtensionsContainerImage: a4.extensionsImage,
      },
    };
    expect(
      renderName([
        '--pool',
        'worker',
        '--controller-config',
        writeObjects([cc]),
        writeObjects(a4.configs),
      ]),
    ).toBe(a4.name);
  });

  it('A14 from YAML with a literal block', () => {
    const yamlFile = tmp.write(
      'a14.yaml',
      `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 00-worker
  labels: {machineconfiguration.openshift.io/role: worker}
  annotations: {machineconfiguration.openshift.io/generated-by-controller-version: somehash}
spec:
  config:
    ignition: {version: 3.5.0}
    storage:
      files:
      - {path: /etc/motd, mode: 420, overwrite: true, contents: {source: "data:,hello%20world%0A"}}
    systemd:
      units:
      - name: hello.service
        enabled: true
        contents: |
          [Unit]
          Description=Hello

          [Service]
          ExecStart=/bin/echo "hi: there"

          [Install]
          WantedBy=multi-user.target
---
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-worker-kargs
  labels: {machineconfiguration.openshift.io/role: worker}
spec:
  kernelArguments: [nosmt, hugepages=2]
`,
    );
    const a14 = renderVector('A14');
    expect(renderName(['--pool', 'worker', '--base-os-image', a14.baseOSImage, yamlFile])).toBe(
      a14.name,
    );
  });

  it('the name does not depend on whitespace or key order in the input files', () => {
    const configs = [
      mc('50-a', 'worker', {
        config: ign({ storage: { files: [file('/etc/a', 'data:,x', { mode: 420 })] } }),
      }),
    ];
    const reordered = [
      {
        spec: {
          config: {
            storage: { files: [{ mode: 420, contents: { source: 'data:,x' }, path: '/etc/a' }] },
            ignition: { version: '3.5.0' },
          },
        },
        metadata: configs[0]!.metadata,
        kind: 'MachineConfig',
        apiVersion: 'machineconfiguration.openshift.io/v1',
      },
    ];
    expect(renderName(['--pool', 'worker', writeObjects(configs, 0)])).toBe(
      renderName(['--pool', 'worker', writeObjects(reordered, '\t')]),
    );
  });
});

describe('mco render: output', () => {
  it('prints the rendered MachineConfig as YAML with upstream annotations', () => {
    const r = runMco(['render', '--pool', 'worker', 'examples/']);
    expect(r.code).toBe(0);
    const out = parse(r.stdout) as {
      kind: string;
      metadata: { name: string; annotations: Record<string, string> };
      spec: { kernelArguments: string[]; config: IgnitionConfig };
    };
    expect(out.kind).toBe('MachineConfig');
    expect(out.metadata.name).toMatch(/^rendered-worker-[0-9a-f]{32}$/);
    expect(Object.keys(out.metadata.annotations).sort()).toEqual([
      'machineconfiguration.openshift.io/generated-by-controller-version',
      'machineconfiguration.openshift.io/release-image-version',
    ]);
    expect(out.spec.kernelArguments).toEqual(['nosmt', 'hugepagesz=2M hugepages=64']);
    expect(out.spec.config.storage?.files?.map((f) => f.path)).toEqual(['/etc/chrony.conf']);
    expect(out.spec.config.systemd?.units?.map((u) => u.name)).toEqual(['node-health.service']);
    expect(out.spec.config.passwd?.users?.[0]?.name).toBe('core');
  });

  it('renders the custom infra pool with worker configs first and infra on top', () => {
    const r = runMco(['render', '--pool', 'infra', 'examples/', '-o', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      metadata: { name: string };
      spec: { config: IgnitionConfig };
    };
    expect(out.metadata.name).toMatch(/^rendered-infra-/);
    expect(out.spec.config.storage?.files?.map((f) => f.path)).toEqual([
      '/etc/chrony.conf',
      '/etc/motd',
    ]);
  });

  it('-o name prints only the name', () => {
    const r = runMco(['render', '--pool', 'worker', 'examples/', '-o', 'name']);
    expect(r.stdout).toMatch(/^rendered-worker-[0-9a-f]{32}\n$/);
  });
});

describe('mco render with registries documents', () => {
  const release = `quay.io/openshift-release-dev/ocp-release@sha256:${'b'.repeat(64)}`;
  const cc = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller' },
    spec: { releaseImage: release },
  };
  const image = {
    apiVersion: 'config.openshift.io/v1',
    kind: 'Image',
    metadata: { name: 'cluster' },
    spec: { registrySources: { blockedRegistries: ['blocked.example.com'] } },
  };
  const idms = (policy?: string) => ({
    apiVersion: 'config.openshift.io/v1',
    kind: 'ImageDigestMirrorSet',
    metadata: { name: `m${policy ?? ''}` },
    spec: {
      imageDigestMirrors: [
        {
          source: 'quay.io/openshift-release-dev',
          mirrors: ['127.0.0.1:5000/mirror'],
          ...(policy === undefined ? {} : { mirrorSourcePolicy: policy }),
        },
      ],
    },
  });
  const decode = (source: string): string =>
    Buffer.from(source.slice(source.indexOf(',') + 1), 'base64').toString('utf8');

  it('an IDMS and Image cluster put registries.conf and policy.json into every pool’s render', () => {
    const inputs = writeObjects([cc, image, idms(), mc('50-x', 'worker')]);
    for (const poolName of ['worker', 'master', 'infra']) {
      const args = [
        '--pool',
        poolName,
        inputs,
        ...(poolName === 'infra'
          ? [
              '--pool-file',
              tmp.write('infra.json', JSON.stringify(pool('infra', ['worker', 'infra']))),
            ]
          : []),
      ];
      const r = runMco(['render', ...args, '-o', 'json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      emitted.push(args);
      const out = JSON.parse(r.stdout) as { spec: { config: IgnitionConfig } };
      const files = out.spec.config.storage?.files ?? [];
      const conf = files.find((f) => f.path === '/etc/containers/registries.conf');
      expect(decode(conf?.contents?.source ?? '')).toContain(
        '[[registry.mirror]]\nlocation = "127.0.0.1:5000/mirror"\ninsecure = false\npull-from-mirror = "digest-only"',
      );
      const policy = files.find((f) => f.path === '/etc/containers/policy.json');
      expect(JSON.parse(decode(policy?.contents?.source ?? '{}'))).toMatchObject({
        transports: { docker: { 'blocked.example.com': [{ type: 'reject' }] } },
      });
    }
    expect(renderName(['--pool', 'worker', inputs])).not.toBe(
      renderName(['--pool', 'worker', writeObjects([cc, mc('50-x', 'worker')])]),
    );
  });

  it('a ClusterImagePolicy and an ImagePolicy put their sigstore files into the render', () => {
    const keyData = Buffer.from(
      '-----BEGIN PUBLIC KEY-----\nkey\n-----END PUBLIC KEY-----\n',
    ).toString('base64');
    const policy = { rootOfTrust: { policyType: 'PublicKey', publicKey: { keyData } } };
    const cip = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterImagePolicy',
      metadata: { name: 'release' },
      spec: { scopes: ['quay.io/openshift-release-dev'], policy },
    };
    const ip = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImagePolicy',
      metadata: { name: 'apps', namespace: 'team-a' },
      spec: { scopes: ['apps.example.com'], policy },
    };
    const r = runMco([
      'render',
      '--pool',
      'worker',
      writeObjects([cc, idms(), cip, ip, mc('50-x', 'worker')]),
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const files = (JSON.parse(r.stdout) as { spec: { config: IgnitionConfig } }).spec.config.storage
      ?.files;
    const text = (path: string) =>
      decode(files?.find((f) => f.path === path)?.contents?.source ?? '');
    expect(JSON.parse(text('/etc/containers/policy.json'))).toMatchObject({
      transports: {
        docker: {
          'quay.io/openshift-release-dev': [
            { type: 'sigstoreSigned', keyData, signedIdentity: { type: 'matchRepoDigestOrExact' } },
          ],
        },
      },
    });
    expect(text('/etc/containers/registries.d/sigstore-registries.yaml')).toContain(
      '  127.0.0.1:5000/mirror:\n    use-sigstore-attachments: true\n',
    );
    expect(JSON.parse(text('/etc/crio/policies/team-a.json'))).toMatchObject({
      transports: { docker: { 'apps.example.com': [{ type: 'sigstoreSigned' }] } },
    });
  });

  it('a conflicting mirror set fails with the controller’s error and prints nothing', () => {
    const icsp = {
      apiVersion: 'operator.openshift.io/v1alpha1',
      kind: 'ImageContentSourcePolicy',
      metadata: { name: 'legacy' },
      spec: {
        repositoryDigestMirrors: [
          { source: 'quay.io/openshift-release-dev', mirrors: ['m.example.com/x'] },
        ],
      },
    };
    const r = runMco([
      'render',
      '--pool',
      'worker',
      writeObjects([cc, image, idms('NeverContactSource'), icsp]),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'could not Create/Update MachineConfig: could not update registries config with new changes: conflicting mirrorSourcePolicy is set for the same source "quay.io/openshift-release-dev" in imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies',
    );
  });
});

describe('mco render: bad input fails with upstream message and prints nothing', () => {
  const cases: [string, unknown[], string][] = [
    [
      'unknown Ignition version',
      [mc('50-x', 'worker', { config: { ignition: { version: '4.0.0' } } })],
      'parsing Ignition config failed: unknown version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    ],
    [
      'missing Ignition version',
      [mc('50-x', 'worker', { config: { storage: {} } })],
      'parsing Ignition config failed: invalid version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    ],
    [
      'relative path',
      [
        mc('50-x', 'worker', {
          config: ign({ storage: { files: [file('etc/x', 'data:,x')] } }, '3.2.0'),
        }),
      ],
      'error at $.storage.files.0.path: path not absolute',
    ],
    [
      '.. in a path',
      [
        mc('50-x', 'worker', {
          config: ign({ storage: { files: [file('/etc/../x', 'data:,x')] } }, '3.2.0'),
        }),
      ],
      'error at $.storage.files.0.path',
    ],
    [
      'mode 04755',
      [
        mc('50-x', 'worker', {
          config: ign({
            storage: { files: [file('/usr/local/bin/x', 'data:,x', { mode: 0o4755 })] },
          }),
        }),
      ],
      'invalid mode 04755 for /usr/local/bin/x, cannot exceed 0777',
    ],
    [
      'unknown extension',
      [mc('50-x', 'worker', { config: ign(), extensions: ['wireshark'] })],
      'invalid extensions found: [wireshark]',
    ],
    [
      'an MC without labels',
      [mc('50-nolabels', undefined, { config: ign() })],
      'cannot find label in MachineConfig 50-nolabels',
    ],
    [
      'a duplicate path',
      [
        mc('50-x', 'worker', {
          config: ign(
            { storage: { files: [file('/etc/x', 'data:,1'), file('/etc/x', 'data:,2')] } },
            '3.2.0',
          ),
        }),
      ],
      'error at $.storage.files.1: duplicate entry defined',
    ],
    [
      'no configs for the pool',
      [mc('50-x', 'master')],
      'Failed to render configuration for pool worker: no MachineConfigs found matching selector machineconfiguration.openshift.io/role=worker',
    ],
  ];

  it.each(cases)('%s', (_name, objects, message) => {
    const r = runMco(['render', '--pool', 'worker', writeObjects(objects)]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });

  it('malformed YAML', () => {
    const bad = tmp.write(
      'bad.yaml',
      'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: x\n  labels: a: b\n',
    );
    const r = runMco(['render', '--pool', 'worker', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `error parsing ${bad}: error converting YAML to JSON: yaml: line 5:`,
    );
  });

  it('a pool that is neither built in nor given', () => {
    const r = runMco(['render', '--pool', 'gpu', writeObjects([mc('50-x', 'gpu')])]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('MachineConfigPool gpu not found');
  });

  it('--current: an unreconcilable result names the component', () => {
    const currentFile = tmp.write(
      'current.json',
      runMco([
        'render',
        '--pool',
        'worker',
        writeObjects([mc('00-worker', 'worker', { config: ign() })]),
        '-o',
        'json',
      ]).stdout,
    );
    const r = runMco([
      'render',
      '--pool',
      'worker',
      '--current',
      currentFile,
      writeObjects([
        mc('00-worker', 'worker', { config: ign() }),
        mc('99-disks', 'worker', { config: ign({ storage: { disks: [{ device: '/dev/vdb' }] } }) }),
      ]),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /reconciliation failed between current config "rendered-worker-[0-9a-f]{32}" and base config "99-disks": ignition disks section contains changes/,
    );
  });
});

describe('mco render --explain', () => {
  const current = () =>
    tmp.write(
      `explain-current-${++counter}.json`,
      runMco([
        'render',
        '--pool',
        'worker',
        writeObjects([mc('00-worker', 'worker', { config: ign() })]),
        '-o',
        'json',
      ]).stdout,
    );

  it('-o json: one object with the rendered name and what a running node would do', () => {
    const withPolicy = writeObjects([
      mc('00-worker', 'worker', { config: ign() }),
      mc('50-foo', 'worker', {
        config: ign({ storage: { files: [file('/etc/foo/foo.conf', 'data:,x')] } }),
      }),
    ]);
    const policies = writeObjects([
      {
        apiVersion: 'operator.openshift.io/v1',
        kind: 'MachineConfiguration',
        metadata: { name: 'cluster' },
        spec: {
          managementState: 'Managed',
          nodeDisruptionPolicy: {
            files: [
              {
                path: '/etc/foo/foo.conf',
                actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
              },
            ],
          },
        },
      },
    ]);
    const args = ['render', '--pool', 'worker', '--current', current(), '--explain', withPolicy];
    const r = runMco([...args, '--machine-configuration', policies, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      renderedName: renderName(['--pool', 'worker', withPolicy]),
      actions: ['Restart foo.service'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/foo/foo.conf'],
    });
    // without the policy: the default for a file nobody names
    const plain = JSON.parse(runMco([...args, '-o', 'json']).stdout) as Record<string, unknown>;
    expect(plain).toMatchObject({ actions: ['Reboot'], drain: true, reboot: true });
  });

  it('not reconcilable: non-zero, upstream’s message, nothing on stdout', () => {
    const r = runMco([
      'render',
      '--pool',
      'worker',
      '--current',
      current(),
      '--explain',
      '-o',
      'json',
      writeObjects([
        mc('00-worker', 'worker', { config: ign() }),
        mc('99-disks', 'worker', { config: ign({ storage: { disks: [{ device: '/dev/vdb' }] } }) }),
      ]),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('ignition disks section contains changes');
  });
});

describe('every config mco render emits passes the real ignition-validate at 3.3.0', () => {
  const validator = '/usr/bin/ignition-validate';

  function validateRendered(args: readonly string[]): void {
    expect(existsSync(validator), 'ignition-validate is missing: apt-get install -y ignition').toBe(
      true,
    );
    const r = runMco(['render', ...args, '-o', 'json']);
    expect(r.code).toBe(0);
    const config = (JSON.parse(r.stdout) as { spec: { config: unknown } }).spec.config;
    expect(parseIgnition(config).ok).toBe(true);
    const down = translateDown(config as IgnitionConfig, '3.3.0');
    if (!down.ok) throw new Error(JSON.stringify(down.error));
    const v = spawnSync(validator, ['-'], {
      input: serializeIgnition(down.value.config),
      encoding: 'utf8',
    });
    // Warnings (e.g. an enabled unit without [Install], docs/reference/vectors.md §A7) exit 0 and are fine.
    expect(v.stdout + v.stderr).not.toMatch(/^error/m);
    expect(v.status).toBe(0);
  }

  it.each([['worker'], ['infra']])('examples, pool %s', (poolName) => {
    validateRendered(['--pool', poolName, 'examples/']);
  });

  // One process pair per vector: slow on a loaded machine, so it gets its own timeout.
  it('every vector rendered above', { timeout: 300_000 }, () => {
    expect(emitted.length).toBeGreaterThanOrEqual(10);
    for (const args of emitted) validateRendered(args);
  });
});
