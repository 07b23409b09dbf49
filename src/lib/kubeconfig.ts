/**
 * Kubeconfig files as kubectl reads them (client-go `clientcmd`): each file parsed with its
 * relative paths resolved against the folder of the file that names them, a list of files merged
 * with the first file to set a cluster, user or context name winning that whole entry and
 * `current-context` taken from the first file that sets it, then one context selected (the
 * `--context` flag, else `current-context`).
 *
 * Both API clients (client-node and the light HTTPS one) are built from the result, so a command
 * sees the same cluster and credentials whichever client it uses. client-node's own merging
 * (`loadFromDefault`) differs from kubectl's: it throws on a name two files share, lets the last
 * file's `current-context` win and fails on a missing file in `$KUBECONFIG`.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

interface KubeconfigCluster {
  readonly server?: string;
  readonly 'certificate-authority'?: string;
  readonly 'certificate-authority-data'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
  readonly 'proxy-url'?: string;
  readonly [key: string]: unknown;
}

interface KubeconfigExec {
  readonly command?: string;
  readonly [key: string]: unknown;
}

interface KubeconfigUser {
  readonly token?: string;
  readonly tokenFile?: string;
  readonly 'client-certificate'?: string;
  readonly 'client-certificate-data'?: string;
  readonly 'client-key'?: string;
  readonly 'client-key-data'?: string;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: KubeconfigExec;
  readonly [key: string]: unknown;
}

interface KubeconfigContext {
  readonly cluster?: string;
  readonly user?: string;
  readonly namespace?: string;
  readonly [key: string]: unknown;
}

interface Named<T> {
  readonly name: string;
  readonly value: T;
}

/** A kubeconfig with every file path absolute, entries in file order. */
export interface Kubeconfig {
  readonly clusters: readonly Named<KubeconfigCluster>[];
  readonly users: readonly Named<KubeconfigUser>[];
  readonly contexts: readonly Named<KubeconfigContext>[];
  readonly currentContext: string;
}

/** What a client needs: the context chosen and the cluster and user it names. */
export interface KubeconfigSelection {
  readonly contextName: string;
  readonly context: KubeconfigContext;
  readonly clusterName: string;
  readonly cluster: KubeconfigCluster;
  readonly userName: string;
  readonly user: KubeconfigUser;
}

/** A kubeconfig that could not be read or used; `message` is what kubectl prints. */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

const EmptyKubeconfig: Kubeconfig = {
  clusters: [],
  users: [],
  contexts: [],
  currentContext: '',
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{ [key]: the path made absolute }`, or nothing when the entry has no such path. */
function pathAt(base: string, entry: Record<string, unknown>, key: string): Record<string, string> {
  const p = entry[key];
  if (typeof p !== 'string' || p === '') return {};
  return { [key]: isAbsolute(p) ? p : resolve(base, p) };
}

/** clientcmd's ResolveLocalPaths: the path fields of a cluster. */
function resolveCluster(base: string, c: Record<string, unknown>): KubeconfigCluster {
  return { ...c, ...pathAt(base, c, 'certificate-authority') };
}

/** The path fields of a user; an exec command only when it names a path (`./bin/x`), not a name. */
function resolveUser(base: string, u: Record<string, unknown>): KubeconfigUser {
  const exec = u['exec'];
  const command = isRecord(exec) ? exec['command'] : undefined;
  return {
    ...u,
    ...pathAt(base, u, 'client-certificate'),
    ...pathAt(base, u, 'client-key'),
    ...pathAt(base, u, 'tokenFile'),
    ...(isRecord(exec) && typeof command === 'string' && command.includes('/')
      ? { exec: { ...exec, ...pathAt(base, exec, 'command') } }
      : {}),
  };
}

function namedList<T extends object>({
  file,
  doc,
  list,
  field,
  convert,
}: {
  readonly file: string;
  readonly doc: Record<string, unknown>;
  readonly list: 'clusters' | 'users' | 'contexts';
  readonly field: 'cluster' | 'user' | 'context';
  readonly convert: (entry: Record<string, unknown>) => T;
}): Named<T>[] {
  const raw = doc[list];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw new KubeconfigError(`error loading config file "${file}": ${list} is not a list`);
  const seen = new Set<string>();
  return raw.map((entry: unknown) => {
    const name = isRecord(entry) ? entry['name'] : undefined;
    if (!isRecord(entry) || typeof name !== 'string')
      throw new KubeconfigError(
        `error loading config file "${file}": ${list} entry without a name`,
      );
    // clientcmd's conversion from the v1 list to its map refuses a name listed twice in one file.
    if (seen.has(name))
      throw new KubeconfigError(
        `error loading config file "${file}": duplicate name "${name}" in ${list}`,
      );
    seen.add(name);
    const body = entry[field];
    return { name, value: convert(isRecord(body) ? body : {}) };
  });
}

/** One file's kubeconfig; relative paths in it are resolved against the folder of `file`. */
export function parseKubeconfig(text: string, file: string): Kubeconfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new KubeconfigError(`error loading config file "${file}": ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return EmptyKubeconfig;
  if (!isRecord(doc))
    throw new KubeconfigError(`error loading config file "${file}": not a kubeconfig`);
  const base = dirname(resolve(file));
  const current = doc['current-context'];
  return {
    clusters: namedList({
      file,
      doc,
      list: 'clusters',
      field: 'cluster',
      convert: (c) => resolveCluster(base, c),
    }),
    users: namedList({
      file,
      doc,
      list: 'users',
      field: 'user',
      convert: (u) => resolveUser(base, u),
    }),
    contexts: namedList({ file, doc, list: 'contexts', field: 'context', convert: (c) => c }),
    currentContext: typeof current === 'string' ? current : '',
  };
}

function firstWins<T>(lists: readonly (readonly Named<T>[])[]): Named<T>[] {
  const out = new Map<string, Named<T>>();
  for (const list of lists) for (const e of list) if (!out.has(e.name)) out.set(e.name, e);
  return [...out.values()];
}

/** clientcmd's merge of a `$KUBECONFIG` list: the first file to set a name or `current-context` wins. */
export function mergeKubeconfigs(configs: readonly Kubeconfig[]): Kubeconfig {
  return {
    clusters: firstWins(configs.map((c) => c.clusters)),
    users: firstWins(configs.map((c) => c.users)),
    contexts: firstWins(configs.map((c) => c.contexts)),
    currentContext: configs.find((c) => c.currentContext !== '')?.currentContext ?? '',
  };
}

/**
 * The context `contextName` (else the current one) with its cluster and user. An unknown context
 * is kubectl's `context was not found for specified context: NAME`; a context naming a cluster
 * the files do not define is an error here too (kubectl would silently fall back to
 * localhost:8080).
 */
export function selectKubeconfigContext(
  config: Kubeconfig,
  contextName?: string,
): KubeconfigSelection {
  const name =
    contextName !== undefined && contextName !== '' ? contextName : config.currentContext;
  if (name === '')
    throw new KubeconfigError(
      'invalid configuration: no current-context is set and no --context was given',
    );
  const context = config.contexts.find((c) => c.name === name)?.value;
  if (context === undefined)
    throw new KubeconfigError(`context was not found for specified context: ${name}`);
  const clusterName = context.cluster ?? '';
  const cluster = config.clusters.find((c) => c.name === clusterName)?.value;
  if (cluster === undefined)
    throw new KubeconfigError(
      `context "${name}" names cluster "${clusterName}", which no kubeconfig file defines`,
    );
  if (cluster.server === undefined || cluster.server === '')
    throw new KubeconfigError(`cluster "${clusterName}" has no server`);
  const userName = context.user ?? '';
  const user = config.users.find((u) => u.name === userName)?.value ?? {};
  return { contextName: name, context, clusterName, cluster, userName, user };
}

/**
 * The selection as one self-contained kubeconfig document (one cluster, user and context, the
 * context current), in the wire shape client-node's `loadFromString` reads.
 */
export function selectionDocument(s: KubeconfigSelection): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: s.clusterName, cluster: s.cluster }],
    users: [{ name: s.userName, user: s.user }],
    contexts: [{ name: s.contextName, context: s.context }],
    'current-context': s.contextName,
  };
}
