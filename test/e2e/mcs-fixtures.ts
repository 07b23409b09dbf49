/**
 * What the machine config server end-to-end tests serve: a ControllerConfig, a user MachineConfig
 * per role (files in several modes, a unit with a dropin, enabled, an SSH key for core), and the
 * rendered configs `mco bootstrap` / the render controller would make from them and the templates.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import { builtInPool } from '../../src/logic/pools/built-in-pools.js';
import { renderPool, type RenderedPool } from '../../src/logic/render/render-pool.js';
import {
  generateTemplateMachineConfigs,
  type TemplateFile,
} from '../../src/logic/template/generate-template-configs.js';
import { McoVersion } from '../../src/version.js';
import { RepoRoot } from './mcs-support.js';

export const SshKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2eTestKeyForMcsEndToEnd core@e2e';
export const KubeApiCa =
  '-----BEGIN CERTIFICATE-----\nMCS-E2E-KUBE-API-CA\n-----END CERTIFICATE-----\n';

export function controllerConfig(): ControllerConfig {
  const cc: ControllerConfig = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller' },
    spec: {
      clusterDNSIP: '172.30.0.10',
      cloudProviderConfig: '',
      kubeAPIServerServingCAData: Buffer.from(KubeApiCa).toString('base64'),
      rootCAData: Buffer.from('root CA').toString('base64'),
      images: { infraImageKey: 'quay.io/pause:e2e' },
      baseOSContainerImage: 'quay.io/os:e2e',
      baseOSExtensionsContainerImage: '',
      releaseImage: 'quay.io/release:e2e',
      ipFamilies: 'IPv4',
      cloudProviderCAData: null,
      additionalTrustBundle: null,
      proxy: null,
      infra: null,
      dns: null,
      network: null,
    },
  };
  return cc;
}

/** A file of the user config: path, mode and the text it must hold on disk. */
export interface ExpectedFile {
  readonly path: string;
  readonly mode: number;
  readonly text: string;
}

export function userFiles(role: string): ExpectedFile[] {
  return [
    { path: `/etc/e2e/${role}-hello.conf`, mode: 0o644, text: `hello ${role}\n` },
    { path: '/etc/e2e/secret.conf', mode: 0o600, text: 'top secret: 100% & <ok>\n' },
    { path: '/etc/e2e/group.conf', mode: 0o640, text: 'shared with the group\n' },
    { path: '/usr/local/bin/e2e-tool', mode: 0o755, text: '#!/bin/sh\necho "e2e tool"\n' },
  ];
}

export const UnitName = 'e2e-health.service';
export const UnitContents =
  '[Unit]\nDescription=E2E health check\n\n[Service]\nType=oneshot\nExecStart=/usr/local/bin/e2e-tool\n\n[Install]\nWantedBy=multi-user.target\n';
export const DropinName = '10-e2e.conf';
export const DropinContents = '[Service]\nEnvironment=E2E=1\n';

export function userConfig(role: string): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name: `50-${role}-e2e`,
      labels: { 'machineconfiguration.openshift.io/role': role },
    },
    spec: {
      config: {
        ignition: { version: '3.2.0' },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: [SshKey] }] },
        storage: {
          files: userFiles(role).map((f) => ({
            path: f.path,
            mode: f.mode,
            overwrite: true,
            contents: {
              source: `data:text/plain;charset=utf-8;base64,${Buffer.from(f.text).toString('base64')}`,
            },
          })),
        },
        systemd: {
          units: [
            {
              name: UnitName,
              enabled: true,
              contents: UnitContents,
              dropins: [{ name: DropinName, contents: DropinContents }],
            },
          ],
        },
      },
    },
  };
}

function templates(): TemplateFile[] {
  const dir = join(RepoRoot, 'templates');
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((e) => {
      const p = join(d, e);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
  return walk(dir).map((p) => ({ path: relative(dir, p), content: readFileSync(p, 'utf8') }));
}

/** The pool's rendered config, as the render controller makes it. */
export function rendered(role: 'master' | 'worker'): RenderedPool {
  const generated = generateTemplateMachineConfigs({
    controllerConfig: controllerConfig(),
    templates: templates(),
    versionHash: McoVersion.hash,
  });
  if (!generated.ok) throw new Error(JSON.stringify(generated.error));
  const r = renderPool({
    pool: builtInPool(role),
    configs: [userConfig('master'), userConfig('worker'), ...generated.value],
    controllerConfig: controllerConfig(),
    version: McoVersion,
    enforceVersionGates: false,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}
