/**
 * What `mco start` makes once for a cluster, as an installer would: the boot image, the MCS's
 * PKI and token, the OS image URLs ConfigMap and the `99-<pool>-ssh` MachineConfigs.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { createExecCommandRunner } from '../adapters/exec-command-runner.js';
import { ensurePki } from '../adapters/pki.js';
import { buildOstreeCommit, readModesFile } from '../adapters/ostree-repo.js';
import { OsImageUrlConfigMapName } from '../logic/operator/os-image-urls.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { McoVersion } from '../version.js';
import { CliError } from '../shell/cli-io.js';
import { readKubeconfig } from '../shell/kubeconfig.js';
import type { ClusterLayout } from './cluster-layout.js';
import { McsCertificateFile } from './mcs-certificates.js';
import { RepoRoot } from './start-context.js';

const BootRootfs = join(RepoRoot, 'images/rootfs/testos');
const BootModes = join(RepoRoot, 'images/rootfs/testos.modes.json');
export const BootRef = 'testos/x86_64/stable';
/** Fixed, so the same tree gives the same commit (and the same OS image name) every time. */
const BootTimestamp = 1_700_000_000;

/** The boot image: TestOS committed into DIR/images/repo; its pull spec. */
export async function ensureBootImage(layout: ClusterLayout): Promise<string> {
  const built = await buildOstreeCommit({
    runner: createExecCommandRunner(),
    rootfs: BootRootfs,
    repo: layout.imageRepo,
    ref: BootRef,
    version: '1',
    subject: 'TestOS 1 boot image',
    modes: await readModesFile(BootModes),
    timestamp: BootTimestamp,
  });
  return `ostree-local:${layout.imageRepo}#${built.checksum}`;
}

/** The bearer token the box's MCS requires on /config (Ignition sends it from the pointer config). */
export const mcsTokenFile = (layout: ClusterLayout): string => join(layout.mcsDir, 'require-token');

export function mcsToken(layout: ClusterLayout): string {
  return readFileSync(mcsTokenFile(layout), 'utf8').trim();
}

/**
 * The MCS's CA and certificate, the token it requires (made once), and the bootstrap token folder
 * it serves node kubeconfigs from.
 */
export async function prepareMcs(layout: ClusterLayout): Promise<void> {
  mkdirSync(layout.bootstrapTokenDir, { recursive: true, mode: 0o700 });
  if (!existsSync(mcsTokenFile(layout)))
    writeFileSync(mcsTokenFile(layout), `${randomBytes(32).toString('base64url')}\n`, {
      mode: 0o600,
    });
  await ensurePki({ dir: layout.mcsDir, hosts: ['127.0.0.1'], now: Date.now() });
  const bootstrap = readKubeconfig(
    readFileSync(join(layout.apiserverDir, 'bootstrap.kubeconfig'), 'utf8'),
  );
  if (bootstrap === undefined)
    throw new CliError('the API server wrote no usable bootstrap.kubeconfig');
  writeFileSync(join(layout.bootstrapTokenDir, 'token'), bootstrap.token, { mode: 0o600 });
  writeFileSync(join(layout.bootstrapTokenDir, 'ca.crt'), bootstrap.caPem);
}

/** The release's OS images, as the installer leaves them (only written once: upgrades change it). */
export async function ensureOsImageUrls(client: ResourceClient, image: string): Promise<void> {
  try {
    await client.get<ConfigMap>(Resources.configMap, OsImageUrlConfigMapName, McoNamespace);
    return;
  } catch (e) {
    if (!isStatusError(e, 'NotFound')) throw e;
  }
  await client.create<ConfigMap>(Resources.configMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: OsImageUrlConfigMapName, namespace: McoNamespace },
    data: {
      baseOSContainerImage: image,
      baseOSExtensionsContainerImage: '',
      osImageURL: '',
      releaseVersion: McoVersion.raw,
    },
  });
}

/**
 * The installer's `99-<pool>-ssh` MachineConfigs: they declare the `core` user, so Ignition creates
 * it at first boot (as on RHCOS) and later SSH key changes have a user to write to. Created once,
 * before the controller's first render; an administrator's own `99-worker-ssh` replaces it. No key:
 * Ignition writes keys as the target user, who cannot reach a data folder under a 0700 home, while
 * the daemon writes them as root later.
 */
export async function ensureInstallerSshConfigs(client: ResourceClient): Promise<void> {
  for (const pool of ['master', 'worker']) {
    const name = `99-${pool}-ssh`;
    try {
      await client.get<MachineConfig>(Resources.machineConfig, name);
      continue;
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
    }
    await client.create<MachineConfig>(Resources.machineConfig, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name, labels: { 'machineconfiguration.openshift.io/role': pool } },
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          passwd: { users: [{ name: 'core' }] },
        },
      },
    });
  }
}

/** The MCS's CA bundle (every CA still valid), projected from the rotator's ConfigMap. */
export function mcsCaBundle(layout: ClusterLayout): string {
  return join(layout.mcsDir, McsCertificateFile.bundle);
}
