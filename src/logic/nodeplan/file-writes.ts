/**
 * The files an update writes (upstream writeFiles, docs/reference/daemon.md §7.6): every file of the new
 * config, decoded, with its mode (default 0644) and owner (root unless the entry names a user or
 * group by id or by name; names are resolved by the caller on the node). kubelet-ca.crt belongs
 * to the certificate writer and is skipped on normal updates.
 */
import { goQuote } from '../../lib/go/quote.js';
import type { IgnitionConfig, NodeOwner } from '../../ignition/types.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  decodeFileContents,
  describeFileContentsError,
  type FileContentsError,
} from './file-contents.js';
import { KubeletCaPath } from './node-paths.js';

export const DefaultFileMode = 0o644;

/** A user or group: a numeric id, or a name the caller looks up in the node's passwd/group. */
export type OwnerRef =
  { readonly kind: 'id'; readonly id: number } | { readonly kind: 'name'; readonly name: string };

export interface PlannedFile {
  readonly path: string;
  readonly contents: Uint8Array;
  readonly mode: number;
  readonly user: OwnerRef;
  readonly group: OwnerRef;
}

export type FileWriteError =
  | { readonly kind: 'Append'; readonly path: string }
  | { readonly kind: 'Decode'; readonly path: string; readonly error: FileContentsError };

export function describeFileWriteError(e: FileWriteError): string {
  switch (e.kind) {
    case 'Append':
      return 'found an append section when writing files. Append is not supported';
    case 'Decode':
      return `could not decode file ${goQuote(e.path)}: ${describeFileContentsError(e.error)}`;
  }
}

/** upstream's text when the caller cannot resolve an owner name on the node. */
export function describeOwnerLookupFailure(
  path: string,
  which: 'user' | 'group',
  name: string,
): string {
  const detail =
    which === 'user'
      ? `failed to retrieve UserID for username: ${name}`
      : `failed to retrieve GroupID for group: ${name}`;
  return `failed to retrieve file ownership for file ${goQuote(path)}: ${detail}`;
}

const ROOT: OwnerRef = { kind: 'id', id: 0 };

/** getFileOwnership: the id wins, then a non-empty name, else root. */
function ownerRef(owner: NodeOwner | undefined): OwnerRef {
  if (owner?.id !== undefined) return { kind: 'id', id: owner.id };
  if (owner?.name !== undefined && owner.name !== '') return { kind: 'name', name: owner.name };
  return ROOT;
}

export interface FileWriteOptions {
  /** Skip /etc/kubernetes/kubelet-ca.crt (normal updates: true; the certificate writer owns it). */
  readonly skipCertificateWrite?: boolean;
}

export function planFileWrites(
  newIgn: IgnitionConfig,
  options: FileWriteOptions = {},
): Result<readonly PlannedFile[], FileWriteError> {
  const skipCert = options.skipCertificateWrite ?? true;
  const out: PlannedFile[] = [];
  for (const file of newIgn.storage?.files ?? []) {
    if (skipCert && file.path === KubeletCaPath) continue;
    if ((file.append ?? []).length > 0) return err({ kind: 'Append', path: file.path });
    const contents = decodeFileContents(file.contents?.source, file.contents?.compression);
    if (!contents.ok) return err({ kind: 'Decode', path: file.path, error: contents.error });
    out.push({
      path: file.path,
      contents: contents.value,
      mode: file.mode ?? DefaultFileMode,
      user: ownerRef(file.user),
      group: ownerRef(file.group),
    });
  }
  return ok(out);
}
