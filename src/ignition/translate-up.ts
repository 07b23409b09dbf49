/**
 * Translation of any supported config up to the internal spec (versions.ts), as MCO's
 * `ParseAndConvertConfig` does it:
 *
 * - spec 2.2: MCO's `removeIgnDuplicateFilesUnitsUsers`, then 2.2 → 2.3 (coreos/ignition
 *   `config/v2_3`), then 2.3 → 3.0 (coreos/ign-converter `v23tov30`, with only the `root`
 *   filesystem mapped, to `/`), then on as below;
 * - spec 3.x: each step as coreos/ignition `config/v3_(x+1)/translate` (a version bump; 3.3 → 3.4
 *   also masks setuid/setgid/sticky bits out of file and directory modes).
 */
import { goPathJoin } from '../lib/go/path.js';
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import type {
  ConfigReferenceV2,
  FileV2,
  IgnitionConfig,
  IgnitionConfigV2,
  JsonRecord,
  NodeV2,
  PasswdUserV2,
  StorageV2,
  UnitV2,
} from './types.js';
import { isRecord } from './types.js';
import { canonicalize, recanonicalize } from './spec-layouts.js';
import type { SpecVersion } from './versions.js';
import { IgnitionSpecs } from './specs/ignition-specs.js';
import { InternalSpecVersion, SpecVersions } from './versions.js';

export type ParsedIgnition =
  | { readonly version: '2.2.0'; readonly config: IgnitionConfigV2 }
  | { readonly version: Exclude<SpecVersion, '2.2.0'>; readonly config: IgnitionConfig };

/** Why ign-converter's `v23tov30` refuses a spec 2 config. */
type V2ConversionError =
  | { readonly kind: 'InvalidInput'; readonly report: readonly string[] }
  | { readonly kind: 'UsesNetworkd' }
  | { readonly kind: 'NoFilesystem'; readonly name: string }
  | { readonly kind: 'DuplicateInode'; readonly first: string; readonly second: string }
  | { readonly kind: 'UsesOwnLink'; readonly name: string; readonly linkPath: string }
  | { readonly kind: 'DuplicateUnit'; readonly name: string }
  | { readonly kind: 'DuplicateDropin'; readonly unit: string; readonly name: string };

export type TranslateError =
  | { readonly kind: 'UnexpectedUser'; readonly name: string }
  | { readonly kind: 'V2Conversion'; readonly reason: V2ConversionError };

function describeV2ConversionError(e: V2ConversionError): string {
  switch (e.kind) {
    case 'InvalidInput':
      return `Invalid input config:\n${e.report.join('\n')}`;
    case 'UsesNetworkd':
      return 'config includes deprecated networkd section - use Files instead';
    case 'NoFilesystem':
      return `Config defined filesystem ${goQ(e.name)} but no mapping was defined.Please specify a path to be used as the filesystem mountpoint.`;
    case 'DuplicateInode':
      return `Config has conflicting inodes: ${goQ(e.first)} and ${goQ(e.second)}.  All files, directories and links must specify a unique \`path\`.`;
    case 'UsesOwnLink':
      return `${e.name} uses link defined in config ${goQ(e.linkPath)}. Please use a link not defined in Storage:Links`;
    case 'DuplicateUnit':
      return `Config has duplicate unit name ${goQ(e.name)}.  All units must specify a unique \`name\`.`;
    case 'DuplicateDropin':
      return `Config has duplicate dropin name ${goQ(e.name)} in unit ${goQ(e.unit)}.  All dropins must specify a unique \`name\`.`;
  }
}

/**
 * Upstream's text: the dedupe error as MCO returns it, the conversion error as MCO's Ignition
 * converter wraps it (`ParseAndConvertConfig` adds `failed to convert Ignition config spec v2 to
 * v3: ` in front of the latter; see mco-parse.ts).
 */
export function describeTranslateError(e: TranslateError): string {
  switch (e.kind) {
    case 'UnexpectedUser':
      return `unexpected user with name: ${e.name}. Only core user is supported`;
    case 'V2Conversion':
      return `unable to convert Ignition spec v2 config to v3: ${describeV2ConversionError(e.reason)}`;
  }
}

/** Go's `%q` for the strings these messages quote. */
function goQ(s: string): string {
  return JSON.stringify(s);
}

/**
 * A parsed config of any supported spec, in the internal spec. With `fresh`, the caller vouches that a 3.x
 * config is in canonical form and that nothing else changes it (parseIgnition's result): it is
 * then translated without a first full copy, and the result may share parts with it.
 */
export function toLatest(
  parsed: ParsedIgnition,
  { fresh = false }: { readonly fresh?: boolean } = {},
): Result<IgnitionConfig, TranslateError> {
  if (parsed.version !== '2.2.0') {
    return ok(
      fresh
        ? translateUpCanonical(parsed.config, parsed.version)
        : translateUp(parsed.config, parsed.version),
    );
  }
  const deduped = removeDuplicateFilesUnitsUsers(parsed.config);
  if (!deduped.ok) return deduped;
  const v30 = translate22to30(deduped.value);
  if (!v30.ok) return err({ kind: 'V2Conversion', reason: v30.error });
  return ok(translateUp(v30.value, '3.0.0'));
}

/** A 3.x config of spec `from` (canonical form), translated step by step to the internal spec. */
export function translateUp(
  config: IgnitionConfig,
  from: Exclude<SpecVersion, '2.2.0'>,
): IgnitionConfig {
  if (from === InternalSpecVersion)
    return canonicalize(config, InternalSpecVersion) as unknown as IgnitionConfig;
  // The first step makes a canonical copy; after it, only what a step changes needs a walk.
  const next = SpecVersions[SpecVersions.indexOf(from) + 1] ?? InternalSpecVersion;
  const first = withVersion(
    canonicalize(stepInput(config as unknown as JsonRecord, next), next),
    next,
  );
  return translateUpCanonical(
    first as unknown as IgnitionConfig,
    next as Exclude<SpecVersion, '2.2.0'>,
  );
}

/**
 * `translateUp` for a config known to be canonical for `from`: each step walks only the parts
 * whose layout it changes, and the result shares the others with `config`.
 */
function translateUpCanonical(
  config: IgnitionConfig,
  from: Exclude<SpecVersion, '2.2.0'>,
): IgnitionConfig {
  let current = config as unknown as JsonRecord;
  let previous: SpecVersion = from;
  for (const next of SpecVersions.slice(SpecVersions.indexOf(from) + 1)) {
    current = withVersion(recanonicalize(stepInput(current, next), previous, next), next);
    previous = next;
  }
  return current as unknown as IgnitionConfig;
}

/** What a step to `next` starts from: its row's `up` (3.3 → 3.4 masks special mode bits out). */
function stepInput(config: JsonRecord, next: SpecVersion): JsonRecord {
  const up = IgnitionSpecs.row(next).up;
  return up === undefined ? config : up(config);
}

/**
 * `{ ...config, ignition: { ...ignition, version } }`, with Object.assign: V8 (Node 20) is ~10
 * times slower at a spread followed by more properties, which adds up over a pool's configs.
 */
function withVersion(config: JsonRecord, version: SpecVersion): JsonRecord {
  const ignition = isRecord(config['ignition']) ? config['ignition'] : {};
  return Object.assign({}, config, { ignition: Object.assign({}, ignition, { version }) });
}

// ---------------------------------------------------------------------------------------------
// MCO removeIgnDuplicateFilesUnitsUsers (pkg/controller/common)

/**
 * Spec 2 MachineConfigs may repeat files, units and users, which spec 3 forbids. Keeps the last
 * entry per file path and unit name (the lists come out in reverse order), appends the dropins
 * of earlier copies of a unit when their names are new, and collapses users into one `core`
 * user holding the last user's keys, then earlier users' keys, without duplicates.
 */
export function removeDuplicateFilesUnitsUsers(
  config: IgnitionConfigV2,
): Result<IgnitionConfigV2, TranslateError> {
  const users = config.passwd?.users ?? [];
  const out: IgnitionConfigV2 = structuredClone(config);
  if (users.length > 0) {
    const user = collapseUsers(users);
    if (!user.ok) return user;
    out.passwd = { ...out.passwd, users: [user.value] };
  }
  out.storage = { ...out.storage, files: lastFilePerPath(config.storage?.files ?? []) };
  out.systemd = { ...out.systemd, units: lastUnitPerName(config.systemd?.units ?? []) };
  return ok(canonicalize(out, '2.2.0') as unknown as IgnitionConfigV2);
}

function lastFilePerPath(files: readonly FileV2[]): FileV2[] {
  const out: FileV2[] = [];
  const seen = new Set<string>();
  for (const f of [...files].reverse()) {
    const path = f.path ?? '';
    if (seen.has(path)) continue;
    seen.add(path);
    out.push(structuredClone(f));
  }
  return out;
}

function lastUnitPerName(units: readonly UnitV2[]): UnitV2[] {
  const out: UnitV2[] = [];
  for (const u of [...units].reverse()) {
    const kept = out.find((o) => (o.name ?? '') === (u.name ?? ''));
    if (kept === undefined) {
      out.push(structuredClone(u));
      continue;
    }
    for (const d of u.dropins ?? []) {
      const dropins = kept.dropins ?? [];
      if (!dropins.some((e) => (e.name ?? '') === (d.name ?? ''))) {
        kept.dropins = [...dropins, structuredClone(d)];
      }
    }
  }
  return out;
}

function collapseUsers(users: readonly PasswdUserV2[]): Result<PasswdUserV2, TranslateError> {
  const reversed = [...users].reverse();
  const keys: string[] = [];
  for (const u of reversed) {
    if ((u.name ?? '') !== 'core') return err({ kind: 'UnexpectedUser', name: u.name ?? '' });
    keys.push(...(u.sshAuthorizedKeys ?? []));
  }
  const last = structuredClone(reversed[0] ?? {});
  return ok({ ...last, sshAuthorizedKeys: [...new Set(keys)] });
}

// ---------------------------------------------------------------------------------------------
// 2.2 → 2.3 → 3.0 (coreos/ignition config/v2_3 translate + coreos/ign-converter v23tov30)

/** Only the root filesystem can be written to; MCO maps it to `/`. */
const FS_MAP: Readonly<Record<string, string>> = { root: '/' };

/**
 * 2.3's validation marks as deprecated what 2.2 → 2.3 always produces for a partition (`size`
 * and `start` pointers) and user `create` objects; v23tov30 refuses deprecated fields. Only
 * these entries are reproduced, not the warnings a full 2.3 validation would list with them.
 */
function deprecations(config: IgnitionConfigV2): string[] {
  const out: string[] = [];
  for (const u of config.passwd?.users ?? []) {
    if (u.create !== undefined)
      out.push('deprecated: the create object has been deprecated in favor of user-level options');
  }
  for (const d of config.storage?.disks ?? []) {
    for (let i = 0; i < (d.partitions ?? []).length; i++) {
      out.push('deprecated: size is deprecated; use sizeMB instead');
      out.push('deprecated: start is deprecated; use startMB instead');
    }
  }
  return out;
}

function v2Path(node: NodeV2): string {
  return goPathJoin('/', FS_MAP[node.filesystem ?? ''] ?? '', node.path ?? '');
}

/** `CheckPathUsesLink`: a plain prefix test, as upstream. */
function usedLink(links: readonly string[], path: string): string | undefined {
  return links.find((l) => path.startsWith(l) && path !== l);
}

/** ign-converter `Check2_3`. */
function check23(config: IgnitionConfigV2): V2ConversionError | undefined {
  const report = deprecations(config);
  if (report.length > 0) return { kind: 'InvalidInput', report };
  if ((config.networkd?.units ?? []).length > 0) return { kind: 'UsesNetworkd' };
  for (const fs of config.storage?.filesystems ?? []) {
    if (FS_MAP[fs.name ?? ''] === undefined) return { kind: 'NoFilesystem', name: fs.name ?? '' };
  }
  return checkInodes(config) ?? checkUnits(config);
}

function checkInodes(config: IgnitionConfigV2): V2ConversionError | undefined {
  const storage = config.storage ?? {};
  const links = (storage.links ?? []).map(v2Path);
  const seen = new Map<string, string>();
  const entries: [string, readonly NodeV2[]][] = [
    ['File', storage.files ?? []],
    ['Directory', storage.directories ?? []],
    ['Link', storage.links ?? []],
  ];
  for (const [label, nodes] of entries) {
    for (const node of nodes) {
      const path = v2Path(node);
      const name = `${label}: ${path}`;
      const first = seen.get(path);
      if (first !== undefined) return { kind: 'DuplicateInode', first, second: name };
      seen.set(path, name);
      const link = usedLink(links, path);
      if (link !== undefined) return { kind: 'UsesOwnLink', name, linkPath: link };
    }
  }
  return undefined;
}

function checkUnits(config: IgnitionConfigV2): V2ConversionError | undefined {
  const units = new Set<string>();
  for (const u of config.systemd?.units ?? []) {
    const name = u.name ?? '';
    if (units.has(name)) return { kind: 'DuplicateUnit', name };
    units.add(name);
    const dropins = new Set<string>();
    for (const d of u.dropins ?? []) {
      const dn = d.name ?? '';
      if (dropins.has(dn)) return { kind: 'DuplicateDropin', unit: name, name: dn };
      dropins.add(dn);
    }
  }
  return undefined;
}

/** Go's `util.StrP`/`BoolP`/`IntP`: the zero value becomes nil. */
function nonZero<T>(v: T | undefined): T | undefined {
  return v === '' || v === false || v === 0 ? undefined : v;
}

/** Spec 2.2 → 3.0, as MCO's converter does (2.3 in between). The result is 3.0 canonical. */
function translate22to30(config: IgnitionConfigV2): Result<IgnitionConfig, V2ConversionError> {
  const problem = check23(config);
  if (problem !== undefined) return err(problem);
  const out = {
    ignition: ignitionTo30(config.ignition),
    passwd: {
      users: (config.passwd?.users ?? []).map(translateUser),
      groups: (config.passwd?.groups ?? []).map((g) => ({
        name: g.name,
        gid: g.gid,
        passwordHash: nonZero(g.passwordHash),
        system: nonZero(g.system),
      })),
    },
    systemd: { units: (config.systemd?.units ?? []).map(translateUnit) },
    storage: storageTo30(config.storage ?? {}),
  };
  return ok(canonicalize(out, '3.0.0') as unknown as IgnitionConfig);
}

function ignitionTo30(ign: IgnitionConfigV2['ignition']): JsonRecord {
  const ref = (r: ConfigReferenceV2): JsonRecord => ({
    source: r.source ?? '',
    verification: { hash: r.verification?.hash },
  });
  return {
    version: '3.0.0',
    config: {
      replace: ign.config?.replace === undefined ? undefined : ref(ign.config.replace),
      merge: (ign.config?.append ?? []).map(ref),
    },
    security: {
      tls: { certificateAuthorities: (ign.security?.tls?.certificateAuthorities ?? []).map(ref) },
    },
    timeouts: ign.timeouts,
  };
}

function storageTo30(storage: StorageV2): JsonRecord {
  return {
    disks: (storage.disks ?? []).map((d) => ({
      device: d.device,
      wipeTable: nonZero(d.wipeTable),
      partitions: (d.partitions ?? []).map((p) => ({
        label: p.label ?? '',
        number: p.number,
        typeGuid: nonZero(p.typeGuid),
        guid: nonZero(p.guid),
      })),
    })),
    raid: (storage.raid ?? []).map((r) => ({
      name: r.name,
      level: r.level,
      devices: r.devices,
      spares: nonZero(r.spares),
      options: r.options,
    })),
    filesystems: (storage.filesystems ?? [])
      .filter((f) => f.name !== 'root')
      .map((f) => ({
        device: f.mount?.device,
        format: nonZero(f.mount?.format),
        wipeFilesystem: nonZero(f.mount?.wipeFilesystem),
        label: f.mount?.label,
        uuid: f.mount?.uuid,
        options: f.mount?.options,
        path: nonZero(FS_MAP[f.name ?? '']),
      })),
    files: (storage.files ?? []).map(translateFile),
    directories: (storage.directories ?? []).map((d) => ({ ...translateNode(d), mode: d.mode })),
    links: (storage.links ?? []).map((l) => ({
      ...translateNode(l),
      hard: nonZero(l.hard),
      target: l.target ?? '',
    })),
  };
}

function translateUser(u: PasswdUserV2): JsonRecord {
  return {
    name: u.name,
    passwordHash: u.passwordHash,
    sshAuthorizedKeys: u.sshAuthorizedKeys,
    uid: u.uid,
    gecos: nonZero(u.gecos),
    homeDir: nonZero(u.homeDir),
    noCreateHome: nonZero(u.noCreateHome),
    primaryGroup: nonZero(u.primaryGroup),
    groups: u.groups,
    noUserGroup: nonZero(u.noUserGroup),
    noLogInit: nonZero(u.noLogInit),
    shell: nonZero(u.shell),
    system: nonZero(u.system),
  };
}

function translateUnit(u: UnitV2): JsonRecord {
  // `enabled` wins over the deprecated `enable`.
  let enabled: boolean | undefined = u.enabled === true || u.enable === true ? true : undefined;
  if (u.enabled === false) enabled = false;
  return {
    name: u.name,
    enabled,
    mask: nonZero(u.mask),
    contents: nonZero(u.contents),
    dropins: (u.dropins ?? []).map((d) => ({ name: d.name, contents: nonZero(d.contents) })),
  };
}

function translateNode(n: NodeV2): JsonRecord {
  return {
    path: goPathJoin(FS_MAP[n.filesystem ?? ''] ?? '', n.path ?? ''),
    user: { id: n.user?.id, name: nonZero(n.user?.name) },
    group: { id: n.group?.id, name: nonZero(n.group?.name) },
    overwrite: n.overwrite,
  };
}

function translateFile(f: FileV2): JsonRecord {
  // Spec 2 files overwrite by default, spec 3 files do not; appended files never overwrite.
  const overwrite = f.append === true ? false : (f.overwrite ?? true);
  const contents = {
    compression: nonZero(f.contents?.compression),
    source: f.contents?.source ?? '',
    verification: { hash: f.contents?.verification?.hash },
  };
  return {
    ...translateNode({ ...f, overwrite }),
    mode: f.mode,
    ...(f.append === true ? { append: [contents] } : { contents }),
  };
}
