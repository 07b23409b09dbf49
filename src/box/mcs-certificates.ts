/**
 * The box's side of the MCS certificate rotation (the rotator itself runs in the controller):
 *
 * - the Infrastructure `cluster`, as the installer leaves it, so the rotator has the host the MCS
 *   is reached at (`status.apiServerInternalURI`; in the box, 127.0.0.1);
 * - the first signer, bundle and serving Secret, made from the MCS PKI `mco start` already keeps in
 *   DIR/mcs/ (so the first rotation is the first refresh, not every start);
 * - the kubelet's part on a cluster: the serving Secret and the CA bundle projected into files
 *   (DIR/mcs/tls.crt, tls.key, ca-bundle.crt), which the MCS reloads without a restart and the
 *   pointer configs and the operator read; `onBundle` runs after the bundle file changes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Infrastructure } from '../api/config/v1/infrastructure.js';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import type { Secret } from '../api/core/v1/secret.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { PkiFile } from '../adapters/pki.js';
import { systemClock } from '../adapters/system-clock.js';
import { readCertificates } from '../logic/certificates/certificate-facts.js';
import {
  CertificateAnnotation,
  McsCertificateObjects,
} from '../logic/certificates/mcs-cert-rotation.js';
import { rfc3339 } from '../api/meta/v1/time.js';
import { silentLogger } from '../ports/logger.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { Informer } from '../runtime/informer.js';
import { writePrivateFile } from '../shell/apiserver-credentials.js';

const { namespace } = McsCertificateObjects;
const BundleKey = 'ca-bundle.crt';

/** Where the projected files live in DIR/mcs/. */
export const McsCertificateFile = {
  cert: 'tls.crt',
  key: 'tls.key',
  bundle: 'ca-bundle.crt',
} as const;

async function createUnlessPresent(
  client: ResourceClient,
  ref: ResourceRef,
  object: ApiObject,
): Promise<boolean> {
  try {
    await client.create(ref, object);
    return true;
  } catch (e) {
    if (isStatusError(e, 'AlreadyExists')) return false;
    throw e;
  }
}

/** The Infrastructure `cluster` with the API server's internal URI, unless one exists. */
export async function ensureInfrastructure(
  client: ResourceClient,
  apiServerUrl: string,
): Promise<void> {
  const infra: Infrastructure = {
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    metadata: { name: 'cluster' },
    spec: { platformSpec: { type: 'None' } },
  };
  if (!(await createUnlessPresent(client, Resources.infrastructure, infra))) return;
  const created = await client.get<Infrastructure>(Resources.infrastructure, 'cluster');
  await client.updateStatus<Infrastructure>(Resources.infrastructure, {
    ...created,
    status: {
      infrastructureName: 'box',
      platform: 'None',
      platformStatus: { type: 'None' },
      apiServerURL: apiServerUrl,
      apiServerInternalURI: apiServerUrl,
      controlPlaneTopology: 'HighlyAvailable',
      infrastructureTopology: 'HighlyAvailable',
    },
  });
}

const tlsSecret = (
  name: string,
  cert: string,
  key: string,
  annotations: Record<string, string>,
): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace, annotations },
  type: 'kubernetes.io/tls',
  data: {
    'tls.crt': Buffer.from(cert).toString('base64'),
    'tls.key': Buffer.from(key).toString('base64'),
  },
});

/** The rotator's objects from DIR/mcs/'s CA and serving certificate, where none exist yet. */
export async function seedMcsCertificates(client: ResourceClient, mcsDir: string): Promise<void> {
  const read = (file: string) => readFileSync(join(mcsDir, file), 'utf8');
  const ca = readCertificates(read(PkiFile.caCert))[0];
  const serving = readCertificates(read(PkiFile.servingCert))[0];
  if (ca === undefined || serving === undefined)
    throw new Error(`${mcsDir} holds no usable MCS CA and serving certificate`);
  const validity = (c: { notBefore: number; notAfter: number }) => ({
    [CertificateAnnotation.notBefore]: rfc3339(c.notBefore),
    [CertificateAnnotation.notAfter]: rfc3339(c.notAfter),
  });
  const seeded = await createUnlessPresent(
    client,
    Resources.secret,
    tlsSecret(McsCertificateObjects.signerSecret, ca.pem, read(PkiFile.caKey), validity(ca)),
  );
  if (!seeded) return;
  const bundle: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: McsCertificateObjects.bundleConfigMap, namespace },
    data: { [BundleKey]: ca.pem },
  };
  await createUnlessPresent(client, Resources.configMap, bundle);
  await createUnlessPresent(
    client,
    Resources.secret,
    tlsSecret(McsCertificateObjects.servingSecret, serving.pem, read(PkiFile.servingKey), {
      ...validity(serving),
      [CertificateAnnotation.issuer]: ca.commonName,
      [CertificateAnnotation.hostnames]: serving.hosts.join(','),
    }),
  );
}

/** Writes `content` to `path` unless it already holds it; true when it wrote. */
function project(path: string, content: string, mode: number): boolean {
  if (content === '' || (existsSync(path) && readFileSync(path, 'utf8') === content)) return false;
  writePrivateFile(path, content, mode);
  return true;
}

export interface McsCertificateProjection {
  /** Resolves once the files hold what the API server has. */
  readonly synced: Promise<void>;
}

/** Keeps DIR/mcs/tls.crt, tls.key and ca-bundle.crt in step with the Secret and ConfigMap. */
export function projectMcsCertificates(
  client: ResourceClient,
  mcsDir: string,
  onBundle: () => void,
  signal: AbortSignal,
): McsCertificateProjection {
  const base = { client, clock: systemClock, log: silentLogger, namespace };
  const secrets = new Informer<Secret>({
    ...base,
    ref: Resources.secret,
    fieldSelector: `metadata.name=${McsCertificateObjects.servingSecret}`,
  });
  const configMaps = new Informer<ConfigMap>({
    ...base,
    ref: Resources.configMap,
    fieldSelector: `metadata.name=${McsCertificateObjects.bundleConfigMap}`,
  });
  const decoded = (v: string | undefined) =>
    v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8');
  const onSecret = (s: Secret) => {
    // The key first: the MCS reloads when the certificate changes.
    project(join(mcsDir, McsCertificateFile.key), decoded(s.data?.['tls.key']), 0o600);
    project(join(mcsDir, McsCertificateFile.cert), decoded(s.data?.['tls.crt']), 0o644);
  };
  const onConfigMap = (c: ConfigMap) => {
    if (project(join(mcsDir, McsCertificateFile.bundle), c.data?.[BundleKey] ?? '', 0o644))
      onBundle();
  };
  secrets.addHandler({
    onAdd: onSecret,
    onUpdate: (_old, s) => {
      onSecret(s);
    },
  });
  configMaps.addHandler({
    onAdd: onConfigMap,
    onUpdate: (_old, c) => {
      onConfigMap(c);
    },
  });
  void secrets.run(signal);
  void configMaps.run(signal);
  return {
    synced: Promise.all([secrets.waitForSync(signal), configMaps.waitForSync(signal)]).then(
      () => undefined,
    ),
  };
}
