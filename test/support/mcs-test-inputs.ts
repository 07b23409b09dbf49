/**
 * Test helpers for the machine config server: a fixed ConfigSource, a recording logger and
 * metrics, and a rendered MachineConfig + ControllerConfig to serve. Test-only (not imported by
 * production code).
 */
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { Result } from '../../src/lib/result.js';
import { err, ok } from '../../src/lib/result.js';
import type { Logger } from '../../src/ports/logger.js';
import type {
  ConfigSource,
  ConfigSourceError,
  ServingInputs,
} from '../../src/server/config-source.js';
import type { ConfigRequestSample, McsMetrics } from '../../src/ports/mcs-metrics.js';

export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

export function recordingLogger(): Logger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const make = (base: Record<string, unknown>): Logger & { readonly entries: LogEntry[] } => {
    const at =
      (level: LogEntry['level']) =>
      (message: string, fields?: Record<string, unknown>): void => {
        entries.push({ level, message, fields: { ...base, ...fields } });
      };
    return {
      entries,
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make({});
}

export function recordingMetrics(): McsMetrics & { readonly samples: ConfigRequestSample[] } {
  const samples: ConfigRequestSample[] = [];
  return { samples, observeConfigRequest: (s) => samples.push(s) };
}

/** A source serving `inputs` for the pools it names; others fail as an unknown pool does. */
export function fixedSource(
  byPool: Readonly<Record<string, ServingInputs | undefined>>,
): ConfigSource & { calls: number } {
  const source = {
    calls: 0,
    getConfig(pool: string): Promise<Result<ServingInputs | undefined, ConfigSourceError>> {
      source.calls += 1;
      if (!Object.hasOwn(byPool, pool)) return Promise.resolve(err({ kind: 'PoolNotFound', pool }));
      return Promise.resolve(ok(byPool[pool]));
    },
  };
  return source;
}

export const TestCa = '-----BEGIN CERTIFICATE-----\nkube-apiserver CA\n-----END CERTIFICATE-----\n';

export function testControllerConfig(
  spec: Partial<ControllerConfig['spec']> = {},
): ControllerConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller', resourceVersion: '7' },
    spec: {
      clusterDNSIP: '172.30.0.10',
      cloudProviderConfig: '',
      kubeAPIServerServingCAData: Buffer.from(TestCa).toString('base64'),
      rootCAData: '',
      cloudProviderCAData: null,
      additionalTrustBundle: null,
      images: {},
      baseOSContainerImage: 'quay.io/os:1',
      releaseImage: 'quay.io/release:1',
      proxy: null,
      infra: null,
      dns: null,
      ipFamilies: 'IPv4',
      network: null,
      ...spec,
    },
  };
}

/** A rendered config with files in several modes, a unit with a dropin and an SSH key. */
export function testRenderedConfig(
  name = 'rendered-worker-0123456789abcdef0123456789abcdef',
  extra: Record<string, unknown> = {},
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name,
      uid: 'uid-1',
      resourceVersion: '42',
      annotations: {
        'machineconfiguration.openshift.io/generated-by-controller-version': 'mco-ts-0.1.0',
      },
      ownerReferences: [
        {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfigPool',
          name: 'worker',
          uid: 'pool-uid',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      osImageURL: 'quay.io/os:1',
      baseOSExtensionsContainerImage: '',
      config: {
        ignition: { version: '3.5.0' },
        passwd: {
          users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAAtest core@test'] }],
        },
        storage: {
          files: [
            {
              path: '/etc/motd',
              mode: 420,
              overwrite: true,
              contents: { source: 'data:,hello%0A' },
            },
            {
              path: '/usr/local/bin/tool',
              mode: 493,
              overwrite: true,
              contents: { source: 'data:,%23!%2Fbin%2Fsh%0A' },
            },
            {
              path: '/etc/secret.conf',
              mode: 384,
              overwrite: true,
              contents: { source: 'data:,s3cret%0A' },
            },
          ],
        },
        systemd: {
          units: [
            {
              name: 'health.service',
              enabled: true,
              contents:
                '[Unit]\nDescription=Health\n\n[Service]\nType=oneshot\nExecStart=/bin/true\n\n[Install]\nWantedBy=multi-user.target\n',
              dropins: [{ name: '10-env.conf', contents: '[Service]\nEnvironment=A=1\n' }],
            },
          ],
        },
        ...extra,
      },
      kernelArguments: [],
      extensions: [],
      fips: false,
      kernelType: 'default',
    },
  };
}

export function testInputs(overrides: Partial<ServingInputs> = {}): ServingInputs {
  return {
    pool: 'worker',
    machineConfig: testRenderedConfig(),
    controllerConfig: testControllerConfig(),
    kubeconfig: new TextEncoder().encode('apiVersion: v1\nkind: Config\n'),
    mode: 'cluster',
    revision: 'r1',
    ...overrides,
  };
}
