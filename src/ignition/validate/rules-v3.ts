/**
 * The Validate methods of Ignition's 3.x Go types, one function per type, keyed by Go type name.
 * The walker calls a type's rule when it reaches a value of that type, before the value's fields,
 * which is the order vcontext visits them in. Version differences follow Ignition 2.14 for specs
 * 3.0–3.3 (the release the Debian `ignition-validate` oracle is built from) and the newest upstream
 * source for 3.4–3.5; `latest` adds the checks later releases back-ported to 3.0–3.3.
 *
 * Values are the decoded Go value or, when every key matched exactly, the JSON itself: a field that
 * is absent or null reads as its zero value, and a rule reads only fields its spec version has
 * (the JSON may carry unknown keys). Rules build an entry's path only when they report it.
 */
import type { ConfigPath } from '../report.js';
import type { GoStruct, GoValue } from './decode.js';
import {
  goPathClean,
  goPathExt,
  goPathIsAbs,
  goPathIsCleanAbs,
  goPathJoin,
} from '../../lib/go/path.js';
import { Msg, noInstallSection, noInstallSectionForTemplate } from './messages.js';
import { parseUnitContents } from './systemd-unit.js';
import {
  validateHeaderScheme,
  validateProxyUrl,
  validateTangUrl,
  validateUrl,
  validateUrlNilOk,
} from './url-rules.js';

export interface RuleContext {
  readonly minor: number;
  /** Apply checks added after Ignition 2.14 (always on for 3.4 and 3.5). */
  readonly latest: boolean;
  /** The spec version the caller parsed the config as, e.g. `3.2.0`. */
  readonly version: string;
}

/** Receives an entry; `path` must be the rule's own copy (the walker's path changes as it goes). */
export type Sink = (kind: 'error' | 'warning', path: ConfigPath, message: string) => void;
/** `path` is where the walker is, valid only during the call. */
export type Rule = (v: GoValue, path: ConfigPath, ctx: RuleContext, add: Sink) => void;

const at = (p: ConfigPath, ...more: (string | number)[]): ConfigPath => [...p, ...more];

/** Reports `message`, if there is one, at `p` plus `more`; the path is built only then. */
function report(
  {
    add,
    kind,
    message,
    p,
  }: {
    readonly add: Sink;
    readonly kind: 'error' | 'warning';
    readonly message: string | undefined;
    readonly p: ConfigPath;
  },
  ...more: (string | number)[]
): void {
  if (message !== undefined) add(kind, [...p, ...more], message);
}

// Typed reads of decoded Go values: the decoder guarantees the shape for the version's fields.
function obj(v: GoValue): GoStruct {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as GoStruct) : {};
}
function s(v: GoStruct, k: string): string | null {
  const x = v[k];
  return typeof x === 'string' ? x : null;
}
function n(v: GoStruct, k: string): number | null {
  const x = v[k];
  return typeof x === 'number' ? x : null;
}
function b(v: GoStruct, k: string): boolean | null {
  const x = v[k];
  return typeof x === 'boolean' ? x : null;
}
function list(v: GoStruct, k: string): readonly GoValue[] {
  const x = v[k];
  return Array.isArray(x) ? (x as readonly GoValue[]) : [];
}
function sub(v: GoStruct, k: string): GoStruct {
  return obj(v[k] ?? null);
}
const empty = (x: string | null): boolean => x === null || x === '';
const isTrue = (x: boolean | null): boolean => x === true;

function validatePath(p: string): string | undefined {
  if (p === '') return Msg.noPath;
  if (!goPathIsAbs(p)) return Msg.pathRelative;
  if (!goPathIsCleanAbs(p)) return Msg.dirtyPath;
  return undefined;
}

function validateMode(m: number | null): string | undefined {
  return m !== null && (m < 0 || m > 0o7777) ? Msg.fileIllegalMode : undefined;
}

function specialBitsWarning(m: number | null, ctx: RuleContext): string | undefined {
  // 3.4 and later support setuid/setgid/sticky; Go converts the int to uint32 before masking
  if (m === null || ctx.minor >= 4) return undefined;
  return (m >>> 0) & 0o7000 ? Msg.modeSpecialBits : undefined;
}

function validateIdOrName(v: GoStruct): string | undefined {
  return n(v, 'id') !== null && !empty(s(v, 'name')) ? Msg.bothIdAndNameSet : undefined;
}

const nodeRule = (v: GoStruct, p: ConfigPath, add: Sink): void => {
  const m = validatePath(s(v, 'path') ?? '');
  if (m !== undefined) add('error', at(p, 'path'), m);
};

/** Directory and File: the node, then the mode and its special bits. */
function modeRules(v: GoStruct, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  nodeRule(v, p, add);
  const mode = n(v, 'mode');
  if (mode === null) return;
  const illegal = validateMode(mode);
  if (illegal !== undefined) add('error', at(p, 'mode'), illegal);
  const special = specialBitsWarning(mode, ctx);
  if (special !== undefined) add('warning', at(p, 'mode'), special);
}

function validateHash(hash: string | null, ctx: RuleContext): string | undefined {
  if (hash === null) return undefined;
  const dash = hash.indexOf('-');
  if (dash < 0) return Msg.hashMalformed;
  const fn = hash.slice(0, dash);
  const sum = hash.slice(dash + 1);
  const size = fn === 'sha512' ? 128 : fn === 'sha256' && ctx.minor >= 1 ? 64 : undefined;
  if (size === undefined) return Msg.hashUnrecognized;
  return sum.length === size ? undefined : Msg.hashWrongSize;
}

/** Resource.validateRequiredSource (3.1+): merged configs and CAs must name a source. */
function requiredSource(v: GoStruct, ctx: RuleContext): string | undefined {
  const src = s(v, 'source');
  if (empty(src)) return Msg.sourceRequired;
  return validateUrl(src ?? '', ctx.minor);
}

function resourceRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const r = obj(v);
  const compression = s(r, 'compression');
  if (compression !== null && compression !== '' && compression !== 'gzip') {
    add('error', at(p, 'compression'), Msg.compressionInvalid);
  }
  const source = s(r, 'source');
  if (source === null && s(sub(r, 'verification'), 'hash') !== null)
    add('error', at(p, 'verification', 'hash'), Msg.verificationAndNilSource);
  const bad = validateUrlNilOk(source, ctx.minor);
  if (bad !== undefined) add('error', at(p, 'source'), bad);
  // Resource (3.1+) has HTTP headers; 3.0's FileContents does not, even if the JSON has the key
  if (ctx.minor >= 1) {
    const headers = validateHeaderScheme(list(r, 'httpHeaders').length, source);
    if (headers !== undefined) add('error', at(p, 'httpHeaders'), headers);
  }
}

function storageRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const st = obj(v);
  // every check but the filesystem warnings is about links
  if (list(st, 'links').length > 0) linkRules(st, p, ctx, add);
  if (ctx.latest) filesystemOverwriteWarnings(st, p, add);
}

function linkRules(st: GoStruct, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const paths = (k: string): string[] => list(st, k).map((x) => s(obj(x), 'path') ?? '');
  const linkPaths = paths('links');
  const underLink = (q: string): number => linkPaths.filter((l) => q.startsWith(`${l}/`)).length;
  const flag = (k: string, msg: string): void => {
    paths(k).forEach((q, i) => {
      for (let c = underLink(q); c > 0; c--) add('error', at(p, k, i), msg);
    });
  };
  flag('directories', Msg.directoryUsedSymlink);
  flag('files', Msg.fileUsedSymlink);
  const dirPaths = paths('directories');
  list(st, 'links').forEach((raw, i) => {
    const l = obj(raw);
    const lpath = s(l, 'path') ?? '';
    for (let c = underLink(lpath); c > 0; c--) add('error', at(p, 'links', i), Msg.linkUsedSymlink);
    const target = s(l, 'target');
    if (ctx.minor >= 3 && empty(target)) {
      add('error', at(p, 'links', i, 'target'), Msg.linkTargetRequired);
      return;
    }
    if (!isTrue(b(l, 'hard'))) return;
    let resolved = goPathClean(target ?? '');
    if (!goPathIsAbs(resolved)) resolved = goPathJoin(lpath, target ?? '');
    for (const d of dirPaths)
      if (d === resolved) add('error', at(p, 'links', i), Msg.hardLinkToDirectory);
    if (!ctx.latest) return;
    for (const [owner, key] of [
      ['user', 'id'],
      ['user', 'name'],
      ['group', 'id'],
      ['group', 'name'],
    ] as const) {
      if ((sub(l, owner)[key] ?? null) !== null)
        add('warning', at(p, 'links', i, owner, key), Msg.hardLinkSpecifiesOwner);
    }
  });
}

function filesystemOverwriteWarnings(st: GoStruct, p: ConfigPath, add: Sink): void {
  const disks = new Map<string, GoStruct>();
  for (const d of list(st, 'disks')) disks.set(s(obj(d), 'device') ?? '', obj(d));
  list(st, 'filesystems').forEach((raw, i) => {
    const f = obj(raw);
    const disk = disks.get(s(f, 'device') ?? '');
    if (disk === undefined) return;
    if (list(disk, 'partitions').length > 0)
      add('warning', at(p, 'filesystems', i, 'device'), Msg.partitionsOverwritten);
    else if (!isTrue(b(f, 'wipeFilesystem')) && isTrue(b(disk, 'wipeTable'))) {
      add('warning', at(p, 'filesystems', i, 'device'), Msg.filesystemImplicitWipe);
    }
  });
}

function partitionEnd(q: GoStruct): number {
  const start = n(q, 'startMiB') ?? 0;
  const size = n(q, 'sizeMiB') ?? 0;
  return size === 0 ? start : start + size - 1;
}

function partitionsOverlap(parts: readonly GoStruct[]): number | undefined {
  const sized = (q: GoStruct): boolean =>
    n(q, 'startMiB') !== null && n(q, 'sizeMiB') !== null && n(q, 'startMiB') !== 0;
  for (const a of parts) {
    if (!sized(a)) continue;
    const aStart = n(a, 'startMiB') ?? 0;
    for (const [i, o] of parts.entries()) {
      if (!sized(o) || a === o) continue;
      const oStart = n(o, 'startMiB') ?? 0;
      if (aStart >= oStart && aStart <= partitionEnd(o)) return i;
      if (partitionEnd(a) >= oStart && partitionEnd(a) <= partitionEnd(o)) return i;
      if (aStart < oStart && partitionEnd(a) > partitionEnd(o)) return i;
    }
  }
  return undefined;
}

function diskRule(v: GoValue, p: ConfigPath, _ctx: RuleContext, add: Sink): void {
  const d = obj(v);
  const device = s(d, 'device') ?? '';
  if (device === '') {
    add('error', at(p, 'device'), Msg.diskDeviceRequired);
    return;
  }
  report({ add, kind: 'error', message: validatePath(device), p }, 'device');
  const parts = list(d, 'partitions').map(obj);
  // upstream ranges over a Go map here; with several colliding numbers, the lowest is reported
  const byNumber = new Map<number, number[]>();
  parts.forEach((q, i) => {
    const num = n(q, 'number') ?? 0;
    if (num !== 0) byNumber.set(num, [...(byNumber.get(num) ?? []), i]);
  });
  const collision = [...byNumber.entries()]
    .sort(([a], [c]) => a - c)
    .find(([, idx]) => idx.length > 1);
  if (collision?.[1][1] !== undefined)
    add('error', at(p, 'partitions', collision[1][1]), Msg.partitionNumbersCollide);
  const overlap = partitionsOverlap(parts);
  if (overlap !== undefined) add('error', at(p, 'partitions', overlap), Msg.partitionsOverlap);
  const hasZero = parts.some((q) => (n(q, 'number') ?? 0) === 0);
  if (hasZero && parts.some((q) => b(q, 'shouldExist') === false)) {
    add('error', at(p, 'partitions'), Msg.zeroesWithShouldNotExist);
  }
  const labels = new Set<string>();
  const dupLabel = parts.findIndex((q) => {
    const label = s(q, 'label');
    if (label === null) return false;
    if (labels.has(label)) return true;
    labels.add(label);
    return false;
  });
  if (dupLabel >= 0) add('error', at(p, 'partitions', dupLabel), Msg.duplicateLabels);
}

const GUID = /^(|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$/;

function partitionRule(v: GoValue, p: ConfigPath, _ctx: RuleContext, add: Sink): void {
  const q = obj(v);
  const others =
    s(q, 'label') !== null ||
    !empty(s(q, 'typeGuid')) ||
    !empty(s(q, 'guid')) ||
    n(q, 'startMiB') !== null ||
    n(q, 'sizeMiB') !== null;
  if (b(q, 'shouldExist') === false && others) add('error', at(p), Msg.shouldNotExistWithOthers);
  if ((n(q, 'number') ?? 0) === 0 && s(q, 'label') === null)
    add('error', at(p), Msg.needLabelOrNumber);
  const label = s(q, 'label');
  if (label !== null) {
    // Go's len() counts UTF-8 bytes
    if (new TextEncoder().encode(label).length > 36)
      add('error', at(p, 'label'), Msg.partitionLabelTooLong);
    else if (label.includes(':')) add('error', at(p, 'label'), Msg.labelContainsColon);
  }
  for (const k of ['guid', 'typeGuid']) {
    const g = s(q, k);
    if (g !== null && !GUID.test(g)) add('error', at(p, k), Msg.doesntMatchGuidRegex);
  }
}

const LABEL_LIMITS: Readonly<Record<string, readonly [number, string]>> = {
  ext4: [16, Msg.ext4LabelTooLong],
  btrfs: [256, Msg.btrfsLabelTooLong],
  xfs: [12, Msg.xfsLabelTooLong],
  swap: [15, Msg.swapLabelTooLong],
  vfat: [11, Msg.vfatLabelTooLong],
};

function filesystemRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const f = obj(v);
  report(
    {
      add,
      kind: 'error',
      message: empty(s(f, 'path')) ? undefined : validatePath(s(f, 'path') ?? ''),
      p,
    },
    'path',
  );
  report({ add, kind: 'error', message: validatePath(s(f, 'device') ?? ''), p }, 'device');
  const format = s(f, 'format');
  if (empty(format)) {
    const others =
      !empty(s(f, 'path')) ||
      !empty(s(f, 'label')) ||
      !empty(s(f, 'uuid')) ||
      isTrue(b(f, 'wipeFilesystem')) ||
      (ctx.minor >= 1 && list(f, 'mountOptions').length > 0) ||
      list(f, 'options').length > 0;
    if (others) add('error', at(p, 'format'), Msg.formatNilWithOthers);
  } else {
    const formats = ['ext4', 'btrfs', 'xfs', 'swap', 'vfat', ...(ctx.minor >= 3 ? ['none'] : [])];
    if (!formats.includes(format ?? '')) add('error', at(p, 'format'), Msg.filesystemInvalidFormat);
  }
  const label = s(f, 'label');
  if (empty(label)) return;
  if (empty(format)) {
    add('error', at(p, 'label'), Msg.labelNeedsFormat);
    return;
  }
  const limit = LABEL_LIMITS[format ?? ''];
  if (limit !== undefined && new TextEncoder().encode(label ?? '').length > limit[0])
    add('error', at(p, 'label'), limit[1]);
}

const RAID_LEVELS = [
  'raid1',
  '1',
  'mirror',
  'raid4',
  '4',
  'raid5',
  '5',
  'raid6',
  '6',
  'raid10',
  '10',
];

function raidRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const r = obj(v);
  const level = s(r, 'level') ?? '';
  let levelError: string | undefined;
  if (ctx.minor >= 3 && level === '') levelError = Msg.raidLevelRequired;
  else if (['linear', 'raid0', '0', 'stripe'].includes(level)) {
    const spares = n(r, 'spares');
    if (spares !== null && spares !== 0) levelError = Msg.sparesUnsupportedForLevel;
  } else if (!RAID_LEVELS.includes(level)) levelError = Msg.unrecognizedRaidLevel;
  report({ add, kind: 'error', message: levelError, p }, 'level');
  if (list(r, 'devices').length === 0) add('error', at(p, 'devices'), Msg.raidDevicesRequired);
}

function luksRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const l = obj(v);
  if ((s(l, 'name') ?? '').includes('/')) add('error', at(p, 'name'), Msg.luksNameContainsSlash);
  const label = s(l, 'label');
  if (!empty(label) && new TextEncoder().encode(label ?? '').length > 47)
    add('error', at(p, 'label'), Msg.luksLabelTooLong);
  const device = s(l, 'device');
  report(
    {
      add,
      kind: 'error',
      message: empty(device) ? Msg.diskDeviceRequired : validatePath(device ?? ''),
      p,
    },
    'device',
  );
  const clevisRaw = l['clevis'] ?? null;
  if (clevisRaw !== null) {
    const c = obj(clevisRaw);
    const threshold = n(c, 'threshold');
    const others =
      list(c, 'tang').length > 0 || isTrue(b(c, 'tpm2')) || (threshold !== null && threshold !== 0);
    const custom = c['custom'] ?? null;
    const hasCustom = ctx.minor >= 3 ? !empty(s(obj(custom), 'pin')) : custom !== null;
    if (hasCustom && others) add('error', at(p, 'clevis'), Msg.clevisCustomWithOthers);
  }
  if (validateUrlNilOk(s(sub(l, 'keyFile'), 'source'), ctx.minor) !== undefined) {
    add('error', at(p, 'keys'), Msg.invalidLuksKeyFile);
  }
}

function customRule(v: GoValue, p: ConfigPath, _ctx: RuleContext, add: Sink): void {
  const c = obj(v);
  const pin = s(c, 'pin') ?? '';
  const config = s(c, 'config') ?? '';
  if (pin === '' && config === '') return;
  if (!['tpm2', 'tang', 'sss'].includes(pin)) add('error', at(p, 'pin'), Msg.unknownClevisPin);
  if (config === '') add('error', at(p, 'config'), Msg.clevisConfigRequired);
}

function clevisCustomRule(v: GoValue, p: ConfigPath, _ctx: RuleContext, add: Sink): void {
  const c = obj(v);
  const pin = s(c, 'pin');
  if (empty(pin) && empty(s(c, 'config')) && !isTrue(b(c, 'needsNetwork'))) return;
  if (!empty(pin)) {
    if (!['tpm2', 'tang', 'sss'].includes(pin ?? ''))
      add('error', at(p, 'pin'), Msg.unknownClevisPin);
  } else add('error', at(p, 'pin'), Msg.clevisPinRequired);
  if (empty(s(c, 'config'))) add('error', at(p, 'config'), Msg.clevisConfigRequired);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function tangRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const t = obj(v);
  report({ add, kind: 'error', message: validateTangUrl(s(t, 'url') ?? ''), p }, 'url');
  if (empty(s(t, 'thumbprint'))) add('error', at(p, 'thumbprint'), Msg.tangThumbprintRequired);
  const adv = s(t, 'advertisement');
  if (ctx.minor >= 4 && !empty(adv) && !isJson(adv ?? '')) {
    add('error', at(p, 'advertisement'), Msg.invalidTangAdvertisement);
  }
}

const UNIT_EXTENSIONS = [
  '.service',
  '.socket',
  '.device',
  '.mount',
  '.automount',
  '.swap',
  '.target',
  '.path',
  '.timer',
  '.snapshot',
  '.slice',
  '.scope',
];

function unitRule(v: GoValue, p: ConfigPath, _ctx: RuleContext, add: Sink): void {
  const u = obj(v);
  const name = s(u, 'name') ?? '';
  if (!UNIT_EXTENSIONS.includes(goPathExt(name)))
    add('error', at(p, 'name'), Msg.invalidSystemdExt);
  const contents = s(u, 'contents');
  const parsed = parseUnitContents(contents);
  if (!parsed.ok) {
    add('error', at(p, 'contents'), parsed.message);
    return;
  }
  if (isTrue(b(u, 'enabled')) && !empty(contents) && !parsed.optionSections.includes('Install')) {
    add('warning', at(p, 'contents'), noInstallSection(name));
  }
}

function dropinRule(v: GoValue, p: ConfigPath, _ctx: RuleContext, add: Sink): void {
  const d = obj(v);
  const parsed = parseUnitContents(s(d, 'contents'));
  if (!parsed.ok) add('error', at(p, 'contents'), parsed.message);
  if (goPathExt(s(d, 'name') ?? '') !== '.conf')
    add('error', at(p, 'name'), Msg.invalidSystemdDropinExt);
}

const INSTANCE = /^(.+?)@(.+?)\.service$/;

function systemdRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  if (!ctx.latest) return;
  const units = list(obj(v), 'units').map(obj);
  const byName = new Map(units.map((u) => [s(u, 'name') ?? '', u]));
  units.forEach((u, i) => {
    const name = s(u, 'name') ?? '';
    const m = INSTANCE.exec(name);
    if (m === null || !isTrue(b(u, 'enabled'))) return;
    const template = `${m[1] ?? ''}@.service`;
    const contents = s(byName.get(template) ?? {}, 'contents');
    if (empty(contents)) return;
    const parsed = parseUnitContents(contents);
    if (parsed.ok && !parsed.optionSections.includes('Install')) {
      add('warning', at(p, 'units', i, 'contents'), noInstallSectionForTemplate(template, name));
    }
  });
}

function configRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  if (!ctx.latest) return;
  const cfg = obj(v);
  const unitPaths = new Set<string>();
  for (const raw of list(sub(cfg, 'systemd'), 'units')) {
    const u = obj(raw);
    const name = s(u, 'name') ?? '';
    if (!empty(s(u, 'contents'))) unitPaths.add(`/etc/systemd/system/${name}`);
    for (const d of list(u, 'dropins')) {
      if (!empty(s(obj(d), 'contents')))
        unitPaths.add(`/etc/systemd/system/${name}.d/${s(obj(d), 'name') ?? ''}`);
    }
  }
  const storage = sub(cfg, 'storage');
  for (const k of ['files', 'directories', 'links']) {
    list(storage, k).forEach((raw, i) => {
      if (unitPaths.has(s(obj(raw), 'path') ?? ''))
        add('error', at(p, 'storage', k, i, 'path'), Msg.pathConflictsSystemd);
    });
  }
}

function ignitionRule(v: GoValue, p: ConfigPath, ctx: RuleContext, add: Sink): void {
  const declared = s(obj(v), 'version') ?? '';
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(declared);
  if (m === null) add('error', at(p, 'version'), Msg.invalidVersion);
  else if (declared !== ctx.version) add('error', at(p, 'version'), Msg.unknownVersion);
}

export const RULES_V3: Readonly<Record<string, Rule>> = {
  Config: configRule,
  Ignition: ignitionRule,
  IgnitionConfig: (v, p, ctx, add) => {
    if (ctx.minor < 1) return;
    list(obj(v), 'merge').forEach((r, i) => {
      report({ add, kind: 'error', message: requiredSource(obj(r), ctx), p }, 'merge', i);
    });
  },
  TLS: (v, p, ctx, add) => {
    if (ctx.minor < 1) return;
    list(obj(v), 'certificateAuthorities').forEach((r, i) => {
      report(
        { add, kind: 'error', message: requiredSource(obj(r), ctx), p },
        'certificateAuthorities',
        i,
      );
    });
  },
  Proxy: (v, p, _ctx, add) => {
    for (const [key, httpOk] of [
      ['httpProxy', true],
      ['httpsProxy', false],
    ] as const) {
      const res = validateProxyUrl(s(obj(v), key), httpOk);
      if (res !== undefined) add(res.kind, at(p, key), res.message);
    }
  },
  Resource: resourceRule,
  FileContents: resourceRule,
  ConfigReference: (v, p, ctx, add) => {
    report(
      { add, kind: 'error', message: validateUrlNilOk(s(obj(v), 'source'), ctx.minor), p },
      'source',
    );
  },
  CaReference: (v, p, ctx, add) => {
    report(
      { add, kind: 'error', message: validateUrl(s(obj(v), 'source') ?? '', ctx.minor), p },
      'source',
    );
  },
  HTTPHeader: (v, p, _ctx, add) => {
    const h = obj(v);
    if ((s(h, 'name') ?? '') === '') add('error', at(p, 'name'), Msg.emptyHttpHeaderName);
    if (s(h, 'value') === '') add('error', at(p, 'value'), Msg.invalidHttpHeader);
  },
  Verification: (v, p, ctx, add) => {
    const hash = s(obj(v), 'hash');
    if (hash !== null) report({ add, kind: 'error', message: validateHash(hash, ctx), p }, 'hash');
  },
  Storage: storageRule,
  Directory: (v, p, ctx, add) => {
    modeRules(obj(v), p, ctx, add);
  },
  File: (v, p, ctx, add) => {
    const f = obj(v);
    modeRules(f, p, ctx, add);
    if (isTrue(b(f, 'overwrite')) && s(sub(f, 'contents'), 'source') === null) {
      add('error', at(p, 'overwrite'), Msg.overwriteAndNilSource);
    }
  },
  Link: (v, p, _ctx, add) => {
    nodeRule(obj(v), p, add);
  },
  NodeUser: (v, p, _ctx, add) => {
    report({ add, kind: 'error', message: validateIdOrName(obj(v)), p });
  },
  NodeGroup: (v, p, _ctx, add) => {
    report({ add, kind: 'error', message: validateIdOrName(obj(v)), p });
  },
  Disk: diskRule,
  Partition: partitionRule,
  Filesystem: filesystemRule,
  Raid: raidRule,
  Device: (v, p, _ctx, add) => {
    report({ add, kind: 'error', message: validatePath(typeof v === 'string' ? v : ''), p });
  },
  Luks: luksRule,
  Custom: customRule,
  ClevisCustom: clevisCustomRule,
  Tang: tangRule,
  Systemd: systemdRule,
  Unit: unitRule,
  Dropin: dropinRule,
};

/** IgnoreDuplicates(): list fields whose entries may repeat. */
export const IGNORE_DUPLICATES: Readonly<Record<string, readonly string[]>> = {
  File: ['append'],
  Filesystem: ['options', 'mountOptions'],
  Raid: ['options'],
  Luks: ['options'],
};

/** MergedKeys(): list fields that share one key space. */
export const MERGED_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Storage: { directories: 'Node', files: 'Node', links: 'Node' },
  KernelArguments: { shouldExist: 'KernelArgument', shouldNotExist: 'KernelArgument' },
};

/** Key(): the identity of a list entry, by Go type name. */
export function entryKey(type: string, v: GoValue): string {
  if (typeof v === 'string') return v;
  const o = obj(v);
  switch (type) {
    case 'Directory':
    case 'File':
    case 'Link':
      return s(o, 'path') ?? '';
    case 'Disk':
    case 'Filesystem':
      return s(o, 'device') ?? '';
    case 'Partition': {
      const num = n(o, 'number') ?? 0;
      if (num !== 0) return `number:${num}`;
      const label = s(o, 'label');
      return label === null ? '' : `label:${label}`;
    }
    case 'Tang':
      return s(o, 'url') ?? '';
    case 'Resource':
    case 'ConfigReference':
    case 'CaReference':
    case 'FileContents':
      return s(o, 'source') ?? '';
    default:
      return s(o, 'name') ?? '';
  }
}
