/**
 * What the daemon's certificate writer does for one ControllerConfig (upstream
 * `pkg/daemon/certificate_writer.go`, docs/reference/certificates.md §2): decided here from the
 * ControllerConfig and the node's annotations, done by src/daemon/certificate-writer.ts.
 *
 * - It acts when the node's `lastSyncedControllerConfigResourceVersion` differs from the
 *   ControllerConfig's resourceVersion, or `service-ca-rotate` is "true" and not yet observed.
 * - Files, each with a newline appended when missing: the internal registry pull secret (first,
 *   when set), the kubelet CA, the cloud CA bundle (even when empty); then one
 *   `/etc/docker/certs.d/<file with ".." as ":">/ca.crt` per image registry bundle, data bundles
 *   before user bundles (a user bundle of the same name wins), and every other directory there
 *   removed.
 * - Bundle names come from ConfigMap keys an administrator controls; a name that would leave
 *   its directory (`/`, `.`, `..` after the replacement, NUL) is refused with the reason and
 *   nothing is written, where upstream's filepath.Join would clean it into another path.
 */
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type {
  ControllerConfig,
  ImageRegistryBundle,
} from '../../api/machineconfiguration/v1/controller-config.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  CloudCaBundlePath,
  ImageRegistryCaDir,
  InternalRegistryAuthFilePath,
  KubeletCaPath,
} from '../nodeplan/node-paths.js';

interface CertificateFile {
  readonly path: string;
  readonly data: Uint8Array;
}

export interface CertificateWrites {
  readonly files: readonly CertificateFile[];
  /** Directory names under /etc/docker/certs.d the bundles ask for (others are removed). */
  readonly registryDirs: readonly string[];
  /** The node annotations to record afterwards. */
  readonly annotations: Readonly<Record<string, string>>;
}

export type CertificateWritesError =
  | { readonly kind: 'BadBundleName'; readonly file: string }
  | { readonly kind: 'BadBase64'; readonly field: string };

export function describeCertificateWritesError(e: CertificateWritesError): string {
  switch (e.kind) {
    case 'BadBundleName':
      return `refusing image registry bundle ${JSON.stringify(e.file)}: its name must be a registry host (host or host..port), not a path`;
    case 'BadBase64':
      return `ControllerConfig ${e.field} is not base64`;
  }
}

const Base64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decode(
  field: string,
  value: string | null | undefined,
): Result<Uint8Array, CertificateWritesError> {
  const text = (value ?? '').replace(/\s/g, '');
  if (!Base64.test(text) || text.length % 4 === 1) return err({ kind: 'BadBase64', field });
  return ok(new Uint8Array(Buffer.from(text, 'base64')));
}

const withNewline = (data: Uint8Array): Uint8Array =>
  data.length > 0 && data[data.length - 1] === 0x0a ? data : new Uint8Array([...data, 0x0a]);

/** The directory a bundle's `file` names: `host..port` is `host:port`. */
export function registryDirName(file: string): string | undefined {
  const dir = file.replaceAll('..', ':');
  if (dir === '' || dir === '.' || dir.includes('/') || dir.includes('\0') || dir.includes('..'))
    return undefined;
  return dir;
}

/** Whether the writer has anything to do for this ControllerConfig on this node. */
export function certificatesOutOfDate(
  cc: ControllerConfig,
  nodeAnnotations: Readonly<Record<string, string>>,
): boolean {
  const rv = cc.metadata.resourceVersion ?? '';
  const rotate = cc.metadata.annotations?.[Annotation.serviceCaRotate] ?? '';
  return (
    nodeAnnotations[Annotation.lastSyncedControllerConfigResourceVersion] !== rv ||
    (rotate === 'true' && nodeAnnotations[Annotation.lastObservedServerCAAnnotation] !== rotate)
  );
}

export function planCertificateWrites(
  cc: ControllerConfig,
  nodeAnnotations: Readonly<Record<string, string>>,
): Result<CertificateWrites, CertificateWritesError> {
  const spec = cc.spec;
  const files: CertificateFile[] = [];
  if (spec.internalRegistryPullSecret !== undefined && spec.internalRegistryPullSecret !== null) {
    const secret = decode('internalRegistryPullSecret', spec.internalRegistryPullSecret);
    if (!secret.ok) return secret;
    files.push({ path: InternalRegistryAuthFilePath, data: withNewline(secret.value) });
  }
  const kubeletCa = decode('kubeAPIServerServingCAData', spec.kubeAPIServerServingCAData);
  if (!kubeletCa.ok) return kubeletCa;
  files.push({ path: KubeletCaPath, data: withNewline(kubeletCa.value) });
  const cloudCa = decode('cloudProviderCAData', spec.cloudProviderCAData);
  if (!cloudCa.ok) return cloudCa;
  files.push({ path: CloudCaBundlePath, data: withNewline(cloudCa.value) });

  const bundles: readonly ImageRegistryBundle[] = [
    ...(spec.imageRegistryBundleData ?? []),
    ...(spec.imageRegistryBundleUserData ?? []),
  ];
  const byDir = new Map<string, Uint8Array>();
  for (const b of bundles) {
    const dir = registryDirName(b.file);
    if (dir === undefined) return err({ kind: 'BadBundleName', file: b.file });
    const data = decode(`image registry bundle ${b.file}`, b.data);
    if (!data.ok) return data;
    byDir.set(dir, withNewline(data.value)); // later (user) bundles win
  }
  for (const [dir, data] of byDir)
    files.push({ path: `${ImageRegistryCaDir}/${dir}/ca.crt`, data });

  const rotate = cc.metadata.annotations?.[Annotation.serviceCaRotate];
  const annotations: Record<string, string> = {
    [Annotation.lastSyncedControllerConfigResourceVersion]: cc.metadata.resourceVersion ?? '',
  };
  if (rotate !== undefined && nodeAnnotations[Annotation.lastObservedServerCAAnnotation] !== rotate)
    annotations[Annotation.lastObservedServerCAAnnotation] = rotate;
  return ok({ files, registryDirs: [...byDir.keys()], annotations });
}
