/**
 * The upstream render vectors of docs/reference/vectors.md §A as data, for every test that renders
 * them (the merge and naming functions, the render controller through the API, `mco render`):
 * the inputs (a pool, the MachineConfigs, the ControllerConfig's base images) and what upstream
 * produces from them (the rendered name, the source list in merge order, the merged spec).
 */
import type {
  MachineConfig,
  MachineConfigSpec,
} from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { McoVersion } from '../../src/version.js';
import { ign, mc, pool } from './machine-configs.js';

export interface RenderVector {
  /** The section of docs/reference/vectors.md, with the case when a section has several. */
  readonly id: string;
  readonly pool: MachineConfigPool;
  /** The ControllerConfig's `baseOSContainerImage`. */
  readonly baseOSImage: string;
  /** The ControllerConfig's `baseOSExtensionsContainerImage`. */
  readonly extensionsImage: string;
  readonly configs: readonly MachineConfig[];
  /** The rendered config's name, upstream's hash of `spec`. */
  readonly name: string;
  /** `spec.configuration.source` of the pool, in merge order. */
  readonly source: readonly string[];
  /** The rendered config's spec, whole. */
  readonly spec: MachineConfigSpec;
}

const file = (path: string, source: string, extra: Record<string, unknown> = {}) => ({
  path,
  contents: { source },
  ...extra,
});

/** The merged spec with the defaults the merge writes for fields no config sets. */
const merged = (fields: MachineConfigSpec): MachineConfigSpec => ({
  osImageURL: '',
  baseOSExtensionsContainerImage: '',
  config: ign(),
  kernelArguments: [],
  extensions: [],
  fips: false,
  kernelType: 'default',
  ...fields,
});

const A14Image =
  'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

const HelloUnit =
  '[Unit]\nDescription=Hello\n\n[Service]\nExecStart=/bin/echo "hi: there"\n\n[Install]\nWantedBy=multi-user.target\n';

export const RenderVectors: readonly RenderVector[] = [
  {
    id: 'A1',
    pool: pool('worker'),
    baseOSImage: 'newformatURL',
    extensionsImage: '',
    configs: [mc('fips', 'worker', { fips: true })],
    name: 'rendered-worker-552a0f58ccdcced4c68ca23fe3db7b58',
    source: ['fips'],
    spec: merged({ osImageURL: 'newformatURL', fips: true }),
  },
  {
    id: 'A2 (master)',
    pool: pool('master'),
    baseOSImage: '',
    extensionsImage: '',
    configs: [mc('x', 'master')],
    name: 'rendered-master-6da92b29d98fcd722bbf117520c22ee4',
    source: ['x'],
    spec: merged({}),
  },
  {
    id: 'A2 (worker)',
    pool: pool('worker'),
    baseOSImage: '',
    extensionsImage: '',
    configs: [mc('x', 'worker')],
    name: 'rendered-worker-6da92b29d98fcd722bbf117520c22ee4',
    source: ['x'],
    spec: merged({}),
  },
  {
    id: 'A3',
    pool: pool('infra', ['worker', 'infra']),
    baseOSImage: '',
    extensionsImage: '',
    configs: [
      mc('ccc', 'infra', {
        config: ign({ storage: { files: [file('/etc/test2', 'data:,new', { mode: 420 })] } }),
      }),
      mc('aaa', 'worker', {
        config: ign({ storage: { files: [file('/etc/test1', 'data:,old', { mode: 420 })] } }),
      }),
      mc('bbb', 'worker', {
        config: ign({ storage: { files: [file('/etc/test1', 'data:,new', { mode: 420 })] } }),
      }),
      mc('ddd', 'worker', {
        config: ign({
          storage: {
            files: [
              {
                path: '/etc/test2',
                mode: 420,
                contents: {
                  compression: 'gzip',
                  source: 'data:;base64,H4sIAAAAAAAC/8pPzwcEAAD//5+gF9cDAAAA',
                },
              },
            ],
          },
        }),
      }),
    ],
    name: 'rendered-infra-a548b00ad0fce75c196fc08abb1db9ca',
    source: ['aaa', 'bbb', 'ddd', 'ccc'],
    spec: merged({
      config: ign({
        storage: {
          files: [
            { overwrite: true, path: '/etc/test1', contents: { source: 'data:,new' }, mode: 420 },
            { overwrite: true, path: '/etc/test2', contents: { source: 'data:,new' }, mode: 420 },
          ],
        },
      }),
    }),
  },
  {
    id: 'A4',
    pool: pool('worker'),
    baseOSImage: 'quay.io/openshift/os@sha256:aaaa',
    extensionsImage: 'quay.io/openshift/ext@sha256:bbbb',
    configs: [
      mc('99-b', 'worker', { kernelArguments: ['b1'] }),
      mc('00-a', 'worker', { kernelArguments: ['a1', 'a2'] }),
      mc('50-c', 'worker', { kernelArguments: ['a1'] }),
    ],
    name: 'rendered-worker-ea47e8bfc6faf3183201ebfd8726d08a',
    source: ['00-a', '50-c', '99-b'],
    spec: merged({
      osImageURL: 'quay.io/openshift/os@sha256:aaaa',
      baseOSExtensionsContainerImage: 'quay.io/openshift/ext@sha256:bbbb',
      kernelArguments: ['a1', 'a2', 'a1', 'b1'],
    }),
  },
  {
    id: 'A7',
    pool: pool('worker'),
    baseOSImage: 'img',
    extensionsImage: '',
    configs: [
      mc('a', 'worker', {
        config: ign({
          systemd: {
            units: [
              {
                name: 'foo.service',
                enabled: true,
                contents: '[Unit]\nDescription=A\n',
                dropins: [{ name: '10-a.conf', contents: '[Service]\nX=1\n' }],
              },
            ],
          },
        }),
      }),
      mc('b', 'worker', {
        config: ign({
          systemd: {
            units: [
              {
                name: 'foo.service',
                mask: true,
                dropins: [
                  { name: '10-a.conf', contents: '[Service]\nX=2\n' },
                  { name: '20-b.conf', contents: '[Service]\nY=1\n' },
                ],
              },
            ],
          },
        }),
      }),
    ],
    name: 'rendered-worker-56da1551feb769694bb3d32650dbd435',
    source: ['a', 'b'],
    spec: merged({
      osImageURL: 'img',
      config: ign({
        systemd: {
          units: [
            {
              contents: '[Unit]\nDescription=A\n',
              dropins: [
                { contents: '[Service]\nX=2\n', name: '10-a.conf' },
                { contents: '[Service]\nY=1\n', name: '20-b.conf' },
              ],
              enabled: true,
              mask: true,
              name: 'foo.service',
            },
          ],
        },
      }),
    }),
  },
  {
    id: 'A11',
    pool: pool('worker'),
    baseOSImage: 'img',
    extensionsImage: '',
    configs: [
      mc('a', 'worker', {
        config: ign({
          storage: {
            files: [
              file('/etc/a', 'data:,a', { overwrite: false }),
              file('/etc/b', 'data:,b', { mode: 384 }),
            ],
          },
        }),
      }),
      mc('b', 'worker', { config: ign({ storage: { files: [file('/etc/b', 'data:,b2')] } }) }),
    ],
    name: 'rendered-worker-26a249a4be949ea24f9d2657b5da39a4',
    source: ['a', 'b'],
    spec: merged({
      osImageURL: 'img',
      config: ign({
        storage: {
          files: [
            { overwrite: false, path: '/etc/a', contents: { source: 'data:,a' } },
            { overwrite: true, path: '/etc/b', contents: { source: 'data:,b2' }, mode: 384 },
          ],
        },
      }),
    }),
  },
  {
    id: 'A14',
    pool: pool('worker'),
    baseOSImage: A14Image,
    extensionsImage: '',
    configs: [
      mc(
        '00-worker',
        'worker',
        {
          config: ign({
            storage: {
              files: [
                {
                  path: '/etc/motd',
                  mode: 420,
                  overwrite: true,
                  contents: { source: 'data:,hello%20world%0A' },
                },
              ],
            },
            systemd: { units: [{ name: 'hello.service', enabled: true, contents: HelloUnit }] },
          }),
        },
        { 'machineconfiguration.openshift.io/generated-by-controller-version': McoVersion.hash },
      ),
      mc('99-worker-kargs', 'worker', { kernelArguments: ['nosmt', 'hugepages=2'] }),
    ],
    name: 'rendered-worker-b9f0438d35b63cd301c1aa9df1a7d298',
    source: ['00-worker', '99-worker-kargs'],
    spec: merged({
      osImageURL: A14Image,
      config: ign({
        storage: {
          files: [
            {
              overwrite: true,
              path: '/etc/motd',
              contents: { source: 'data:,hello%20world%0A' },
              mode: 420,
            },
          ],
        },
        systemd: { units: [{ contents: HelloUnit, enabled: true, name: 'hello.service' }] },
      }),
      kernelArguments: ['nosmt', 'hugepages=2'],
    }),
  },
];

/** The vector with this id; a test that names one that does not exist fails at once. */
export function renderVector(id: string): RenderVector {
  const v = RenderVectors.find((x) => x.id === id);
  if (v === undefined) throw new Error(`no render vector ${id}`);
  return v;
}
