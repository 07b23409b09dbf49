/**
 * Is a change to /etc/containers/registries.conf safe without a drain (upstream
 * isSafeContainerRegistryConfChanges, docs/reference/daemon.md §7.5)? Adding search registries at the end,
 * mirrors that are only used by digest, or whole registries whose mirrors are all digest-only
 * cannot change what an already-running pod resolves an image to; anything else might.
 */
import { parse, TomlError } from 'smol-toml';
import { describeDataUrlError, parseDataUrl } from '../../ignition/data-url.js';
import type { IgnitionConfig } from '../../ignition/types.js';
import { err, ok, type Result } from '../../lib/result.js';
import { ContainerRegistryConfPath } from './node-paths.js';

export type RegistriesConfError =
  | { readonly kind: 'DataUrl'; readonly side: 'old' | 'new'; readonly message: string }
  | { readonly kind: 'Toml'; readonly message: string };

export function describeRegistriesConfError(e: RegistriesConfError): string {
  switch (e.kind) {
    case 'DataUrl':
      // upstream's "new" text has no colon
      return e.side === 'old'
        ? `failed decoding Data URL scheme string: ${e.message}`
        : `failed decoding Data URL scheme string ${e.message}`;
    case 'Toml':
      return `failed decoding TOML content from file ${ContainerRegistryConfPath}: ${e.message}`;
  }
}

/** The value of `pull-from-mirror` that only pulls by digest (sysregistriesv2.MirrorByDigestOnly). */
const PullFromMirrorDigestOnly = 'digest-only';

interface Endpoint {
  readonly location: string;
  readonly insecure: boolean;
  readonly pullFromMirror: string;
}

interface Registry extends Endpoint {
  readonly prefix: string;
  readonly blocked: boolean;
  readonly mirrorByDigestOnly: boolean;
  readonly mirrors: readonly Endpoint[];
}

interface RegistriesConf {
  readonly unqualifiedSearchRegistries: readonly string[];
  readonly registries: readonly Registry[];
}

class TypeMismatch extends Error {}

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function field<T>(t: Table, key: string, kind: 'string' | 'boolean', zero: T): T {
  const v = t[key];
  if (v === undefined) return zero;
  // BurntSushi/toml refuses to decode a value of the wrong type into the Go struct
  if (typeof v !== kind) throw new TypeMismatch(`toml: cannot decode ${key} into a ${kind}`);
  return v as T;
}

function tables(t: Table, key: string): Table[] {
  const v = t[key];
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(isTable))
    throw new TypeMismatch(`toml: cannot decode ${key} into a list of tables`);
  return v;
}

function endpoint(t: Table): Endpoint {
  return {
    location: field(t, 'location', 'string', ''),
    insecure: field(t, 'insecure', 'boolean', false),
    pullFromMirror: field(t, 'pull-from-mirror', 'string', ''),
  };
}

function decode(text: string): Result<RegistriesConf, RegistriesConfError> {
  try {
    const doc = parse(text);
    const search = doc['unqualified-search-registries'];
    if (
      search !== undefined &&
      (!Array.isArray(search) || !search.every((s) => typeof s === 'string'))
    )
      throw new TypeMismatch(
        'toml: cannot decode unqualified-search-registries into a list of strings',
      );
    return ok({
      unqualifiedSearchRegistries: search ?? [],
      registries: tables(doc, 'registry').map((r) => ({
        ...endpoint(r),
        prefix: field(r, 'prefix', 'string', ''),
        blocked: field(r, 'blocked', 'boolean', false),
        mirrorByDigestOnly: field(r, 'mirror-by-digest-only', 'boolean', false),
        mirrors: tables(r, 'mirror').map(endpoint),
      })),
    });
  } catch (e: unknown) {
    if (e instanceof TomlError || e instanceof TypeMismatch)
      return err({ kind: 'Toml', message: e.message });
    throw e;
  }
}

/** Registries keyed by scope: the prefix when set, else the location (a later entry wins). */
function byScope(conf: RegistriesConf): Map<string, Registry> {
  return new Map(conf.registries.map((r) => [r.prefix !== '' ? r.prefix : r.location, r]));
}

const findMirror = (location: string, mirrors: readonly Endpoint[]): Endpoint | undefined =>
  mirrors.find((m) => m.location === location);

function sameRegistry(a: Registry, b: Registry): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** All mirrors digest-only; a registry without mirrors needs mirror-by-digest-only. */
function allDigestOnlyMirrors(r: Registry): boolean {
  if (r.mirrors.length === 0) return r.mirrorByDigestOnly;
  return r.mirrors.every((m) => m.pullFromMirror === PullFromMirrorDigestOnly);
}

function safeRegistryChange(oldReg: Registry, newReg: Registry): boolean {
  if (
    oldReg.prefix !== newReg.prefix ||
    oldReg.location !== newReg.location ||
    oldReg.blocked !== newReg.blocked ||
    oldReg.insecure !== newReg.insecure
  )
    return false;
  if (oldReg.mirrors.some((m) => findMirror(m.location, newReg.mirrors) === undefined))
    return false;
  for (const m of newReg.mirrors) {
    const before = findMirror(m.location, oldReg.mirrors);
    if (before === undefined) {
      if (m.pullFromMirror !== PullFromMirrorDigestOnly && !newReg.mirrorByDigestOnly) return false;
    } else if (
      m.pullFromMirror !== before.pullFromMirror &&
      m.pullFromMirror !== PullFromMirrorDigestOnly
    ) {
      return false;
    }
  }
  return true;
}

export function isSafeContainerRegistryConfChange(
  oldToml: string,
  newToml: string,
): Result<boolean, RegistriesConfError> {
  const oldConf = decode(oldToml);
  if (!oldConf.ok) return oldConf;
  const newConf = decode(newToml);
  if (!newConf.ok) return newConf;
  // search order matters: old entries must stay, in place; appending is fine
  const oldSearch = oldConf.value.unqualifiedSearchRegistries;
  const newSearch = newConf.value.unqualifiedSearchRegistries;
  if (oldSearch.some((r, i) => newSearch[i] !== r)) return ok(false);

  const oldRegs = byScope(oldConf.value);
  const newRegs = byScope(newConf.value);
  for (const scope of oldRegs.keys()) if (!newRegs.has(scope)) return ok(false);
  for (const [scope, newReg] of newRegs) {
    const oldReg = oldRegs.get(scope);
    if (oldReg === undefined) {
      if (!allDigestOnlyMirrors(newReg)) return ok(false);
    } else if (!sameRegistry(oldReg, newReg) && !safeRegistryChange(oldReg, newReg)) {
      return ok(false);
    }
  }
  return ok(true);
}

/** The registries.conf text of each side, as upstream reads it (data URL, no decompression). */
export interface RegistriesConfChange {
  /** Whether the file is among the changed paths. */
  readonly changed: boolean;
  readonly oldToml: string;
  readonly newToml: string;
}

function fileData(ign: IgnitionConfig, side: 'old' | 'new'): Result<string, RegistriesConfError> {
  // GetIgnitionFileDataByPath: the first entry for the path with a source
  const file = (ign.storage?.files ?? []).find(
    (f) => f.path === ContainerRegistryConfPath && f.contents?.source !== undefined,
  );
  const source = file?.contents?.source;
  if (source === undefined) return ok('');
  const url = parseDataUrl(source);
  if (!url.ok) return err({ kind: 'DataUrl', side, message: describeDataUrlError(url.error) });
  return ok(new TextDecoder().decode(url.value.data));
}

export function registriesConfChange(
  oldIgn: IgnitionConfig,
  newIgn: IgnitionConfig,
  changedFiles: readonly string[],
): Result<RegistriesConfChange, RegistriesConfError> {
  const oldToml = fileData(oldIgn, 'old');
  if (!oldToml.ok) return oldToml;
  const newToml = fileData(newIgn, 'new');
  if (!newToml.ok) return newToml;
  return ok({
    changed: changedFiles.includes(ContainerRegistryConfPath),
    oldToml: oldToml.value,
    newToml: newToml.value,
  });
}
