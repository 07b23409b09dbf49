/**
 * Error texts in the node's terms: a failed file operation reads as Go's *PathError does
 * (`open /etc/foo/.foo.tmp: operation not permitted`), with node paths, not the paths of the
 * folder a simulated node lives in. These texts end up in the node's `reason` annotation.
 */
import { errorText } from '../lib/error-text.js';

interface ErrnoLike {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly path?: unknown;
  readonly dest?: unknown;
  readonly message: string;
}

function isErrno(e: unknown): e is ErrnoLike & Error {
  return e instanceof Error && typeof (e as ErrnoLike).code === 'string';
}

/** The node path of a host path under `hostRoot` (a real host's root is `/`). */
function toNodePath(hostPath: string, hostRoot: string): string {
  const root = hostRoot.endsWith('/') ? hostRoot.slice(0, -1) : hostRoot;
  if (root === '') return hostPath;
  if (hostPath === root) return '/';
  return hostPath.startsWith(`${root}/`) ? hostPath.slice(root.length) : hostPath;
}

/** Replaces every occurrence of the host root in free text by the node's `/`. */
function nodeText(text: string, hostRoot: string): string {
  const root = hostRoot.endsWith('/') ? hostRoot.slice(0, -1) : hostRoot;
  return root === '' ? text : text.split(`${root}/`).join('/');
}

export function fsErrorText(e: unknown, hostRoot: string): string {
  if (!isErrno(e) || typeof e.syscall !== 'string') {
    return nodeText(errorText(e), hostRoot);
  }
  const code = String(e.code);
  // node: "EPERM: operation not permitted, open '/x/y'"
  let description = e.message.startsWith(`${code}: `)
    ? e.message.slice(code.length + 2)
    : e.message;
  const comma = description.indexOf(`, ${e.syscall}`);
  if (comma >= 0) description = description.slice(0, comma);
  const path = typeof e.path === 'string' ? ` ${toNodePath(e.path, hostRoot)}` : '';
  const dest = typeof e.dest === 'string' ? ` ${toNodePath(e.dest, hostRoot)}` : '';
  return `${e.syscall}${path}${dest}: ${description}`;
}
