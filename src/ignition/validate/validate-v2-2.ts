/**
 * Spec 2.2 validation, after coreos/ignition's v0.x `config/v2_2` and its reflection validator:
 * each struct's Validate() runs first (a fatal result stops the descent into that value), then per
 * field the parent's Validate<Field>() and the field itself, then unknown keys. Spec 2 reports carry
 * no JSON paths, so entries are placed on the value (or field) whose method produced them. There is
 * no 2.x oracle on the host (Ignition 2.14 rejects spec 2), so this follows the upstream source only.
 */
import type { ConfigPath, ReportEntry } from '../report.js';
import { decodeConfig, structDef, type GoStruct, type GoValue } from './decode.js';
import { goPathExt, goPathIsAbs } from '../../lib/go/path.js';
import { goQuoteBytes } from '../../lib/go/quote.js';
import { Msg, noInstallSection } from './messages.js';
import type { GoType, Schema } from './schema.js';
import { parseUnitContents } from './systemd-unit.js';
import { validateUrl } from './url-rules.js';

/** Spec 2 texts that 3.x dropped or reworded (ignition v0.x config/shared/errors). */
const MsgV2 = {
  oldVersion: 'incorrect config version (too old)',
  newVersion: 'incorrect config version (too new)',
  permissionsUnset: 'permissions unset, defaulting to 0000',
  partitionsMisaligned: 'partitions misaligned',
  appendAndOverwrite: 'cannot set both append and overwrite to true',
  noFilesystem: 'no filesystem specified',
  filesystemNoMountPath: 'filesystem is missing mount or path',
  filesystemMountAndPath: 'filesystem has both mount and path defined',
  usedCreateAndMountOpts: 'cannot use both create object and mount-level options field',
  usedCreateAndWipeFilesystem: 'cannot use both create object and wipeFilesystem field',
  createDeprecated: 'the create object has been deprecated in favor of mount-level options',
  sparesUnsupported: 'spares unsupported for arrays with a level greater than 0',
  passwdCreateDeprecated: 'the create object has been deprecated in favor of user-level options',
  invalidNetworkdExt: 'invalid networkd unit extension',
  invalidNetworkdDropinExt: 'invalid networkd drop-in extension',
} as const;

type Kind = 'error' | 'warning' | 'info';
type Out = (kind: Kind, path: ConfigPath, message: string | undefined) => void;

const s = (v: GoStruct, k: string): string => {
  const x = v[k];
  return typeof x === 'string' ? x : '';
};
const ps = (v: GoStruct, k: string): string | null => {
  const x = v[k];
  return typeof x === 'string' ? x : null;
};
const n = (v: GoStruct, k: string): number | null => {
  const x = v[k];
  return typeof x === 'number' ? x : null;
};
const b = (v: GoStruct, k: string): boolean => v[k] === true;
const list = (v: GoStruct, k: string): readonly GoValue[] => {
  const x = v[k];
  return Array.isArray(x) ? (x as readonly GoValue[]) : [];
};
const obj = (v: GoValue): GoStruct =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as GoStruct) : {};
const q = (x: string): string => goQuoteBytes(new TextEncoder().encode(x));

const pathErr = (p: string): string | undefined => (goPathIsAbs(p) ? undefined : Msg.pathRelative);
const modeErr = (m: number | null): string | undefined =>
  m !== null && (m < 0 || m > 0o7777) ? Msg.fileIllegalMode : undefined;

function hashErr(hash: string | null): string | undefined {
  if (hash === null) return undefined;
  const dash = hash.indexOf('-');
  if (dash < 0) return Msg.hashMalformed;
  if (hash.slice(0, dash) !== 'sha512') return Msg.hashUnrecognized;
  return hash.length - dash - 1 === 128 ? undefined : Msg.hashWrongSize;
}

/** v2 validateURL: "" means an empty file; `oem` is still a scheme here, `gs` is not. */
function urlErr(src: string): string | undefined {
  if (src === '') return undefined;
  if (src.toLowerCase().startsWith('oem:')) return validateUrl(`http:${src.slice(4)}`, 0);
  return validateUrl(src, 0);
}

function unitContents({
  contents,
  name,
  enabled,
  p,
  out,
}: {
  readonly contents: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly p: ConfigPath;
  readonly out: Out;
}): void {
  const parsed = parseUnitContents(contents);
  if (!parsed.ok) out('error', p, parsed.message);
  else if (enabled && contents !== '' && !parsed.optionSections.includes('Install')) {
    out('warning', p, noInstallSection(name));
  }
}

function partitionsErrors(parts: readonly GoStruct[]): string[] {
  const errs: string[] = [];
  const numbers = parts.map((x) => n(x, 'number') ?? 0).filter((x) => x !== 0);
  if (new Set(numbers).size !== numbers.length) errs.push(Msg.partitionNumbersCollide);
  const start = (x: GoStruct): number => n(x, 'start') ?? 0;
  const end = (x: GoStruct): number =>
    (n(x, 'size') ?? 0) === 0 ? start(x) : start(x) + (n(x, 'size') ?? 0) - 1;
  const same = (a: GoStruct, c: GoStruct): boolean => JSON.stringify(a) === JSON.stringify(c);
  const overlap = parts.some(
    (a) =>
      start(a) !== 0 &&
      parts.some(
        (o) =>
          !same(a, o) &&
          start(o) !== 0 &&
          ((start(a) >= start(o) && start(a) <= end(o)) ||
            (end(a) >= start(o) && end(a) <= end(o)) ||
            (start(a) < start(o) && end(a) > end(o))),
      ),
  );
  if (overlap) errs.push(Msg.partitionsOverlap);
  if (parts.some((x) => (start(x) & 2047) !== 0)) errs.push(MsgV2.partitionsMisaligned);
  return errs;
}

const GUID = /^(|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$/;
const LABEL_LIMITS: Readonly<Record<string, readonly [number, string]>> = {
  ext4: [16, Msg.ext4LabelTooLong],
  btrfs: [256, Msg.btrfsLabelTooLong],
  xfs: [12, Msg.xfsLabelTooLong],
  swap: [15, Msg.swapLabelTooLong],
  vfat: [11, Msg.vfatLabelTooLong],
};
const CREATE_CONFLICTS: readonly (readonly [string, string])[] = [
  ['gecos', 'gecos'],
  ['groups', 'groups'],
  ['homeDir', 'homeDir'],
  ['noCreateHome', 'noCreateHome'],
  ['noLogInit', 'noLogInit'],
  ['noUserGroup', 'noUserGroup'],
  ['primaryGroup', 'primaryGroup'],
  ['shell', 'shell'],
  ['system', 'system'],
  ['uid', 'uid'],
];

/** Validate(): by Go type name; returns what the method reports on the value itself. */
const VALIDATE: Readonly<Record<string, (v: GoStruct, p: ConfigPath, out: Out) => void>> = {
  Config: (v, p, out) => {
    const storage = obj(v['storage'] ?? null);
    const names = new Set(['root', ...list(storage, 'filesystems').map((f) => s(obj(f), 'name'))]);
    for (const [k, label] of [
      ['files', 'File'],
      ['links', 'Link'],
      ['directories', 'Directory'],
    ] as const) {
      for (const raw of list(storage, k)) {
        const fs = s(obj(raw), 'filesystem');
        if (fs !== '' && !names.has(fs)) {
          const msg = `${label} ${q(s(obj(raw), 'path'))} references nonexistent filesystem ${q(fs)}. (This is ok if it is defined in a referenced config)`;
          out('warning', p, msg);
        }
      }
    }
    const seen = new Set(['root']);
    for (const raw of list(storage, 'filesystems')) {
      const name = s(obj(raw), 'name');
      if (seen.has(name))
        out('warning', p, `Filesystem ${q(name)} shadows exising filesystem definition`);
      seen.add(name);
    }
  },
  Ignition: (v, p, out) => {
    const m = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(
      s(v, 'version'),
    );
    if (m === null) out('error', p, Msg.invalidVersion);
    else if (Number(m[1]) < 2) out('error', p, MsgV2.oldVersion);
    else if (Number(m[1]) > 2 || Number(m[2]) > 2) out('error', p, MsgV2.newVersion);
  },
  File: (v, p, out) => {
    if (v['overwrite'] === true && b(v, 'append')) out('error', p, MsgV2.appendAndOverwrite);
  },
  NodeUser: (v, p, out) => {
    if (n(v, 'id') !== null && s(v, 'name') !== '') out('error', p, Msg.bothIdAndNameSet);
  },
  NodeGroup: (v, p, out) => {
    if (n(v, 'id') !== null && s(v, 'name') !== '') out('error', p, Msg.bothIdAndNameSet);
  },
  Filesystem: (v, p, out) => {
    const mount = v['mount'] ?? null;
    if (mount === null && ps(v, 'path') === null) out('error', p, MsgV2.filesystemNoMountPath);
    if (mount === null) return;
    if (ps(v, 'path') !== null) out('error', p, MsgV2.filesystemMountAndPath);
    const m = obj(mount);
    if ((m['create'] ?? null) === null) return;
    if (b(m, 'wipeFilesystem')) out('error', p, MsgV2.usedCreateAndWipeFilesystem);
    if (list(m, 'options').length > 0) out('error', p, MsgV2.usedCreateAndMountOpts);
    out('warning', p, MsgV2.createDeprecated);
  },
  Mount: (v, p, out) => {
    if (!['ext4', 'btrfs', 'xfs', 'swap', 'vfat'].includes(s(v, 'format')))
      out('error', p, Msg.filesystemInvalidFormat);
  },
  PasswdUser: (v, p, out) => {
    if ((v['create'] ?? null) === null) return;
    out('warning', p, MsgV2.passwdCreateDeprecated);
    for (const [key, word] of CREATE_CONFLICTS) {
      const x = v[key];
      const set = Array.isArray(x)
        ? x.length > 0
        : x !== null && x !== '' && x !== false && x !== undefined;
      if (set)
        out('error', p, `cannot use both the create object and the user-level ${word} field`);
    }
  },
  SystemdDropin: (v, p, out) => {
    const parsed = parseUnitContents(s(v, 'contents'));
    if (!parsed.ok) out('error', p, parsed.message);
    if (goPathExt(s(v, 'name')) !== '.conf') out('error', p, Msg.invalidSystemdDropinExt);
  },
  Networkdunit: (v, p, out) => {
    const parsed = parseUnitContents(s(v, 'contents'));
    if (!parsed.ok) out('error', p, parsed.message);
    if (!['.link', '.netdev', '.network'].includes(goPathExt(s(v, 'name'))))
      out('error', p, MsgV2.invalidNetworkdExt);
  },
  NetworkdDropin: (v, p, out) => {
    const parsed = parseUnitContents(s(v, 'contents'));
    if (!parsed.ok) out('error', p, parsed.message);
    if (goPathExt(s(v, 'name')) !== '.conf') out('error', p, MsgV2.invalidNetworkdDropinExt);
  },
};

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

type FieldCheck = (v: GoStruct, p: ConfigPath, out: Out) => void;

/** Validate<Field>(): methods on the parent type, keyed by type then JSON field name. */
const VALIDATE_FIELD: Readonly<Record<string, Readonly<Record<string, FieldCheck>>>> = {
  ConfigReference: {
    source: (v, p, out) => {
      out('error', p, urlErr(s(v, 'source')));
    },
  },
  CaReference: {
    source: (v, p, out) => {
      out('error', p, urlErr(s(v, 'source')));
    },
  },
  Verification: {
    hash: (v, p, out) => {
      out('error', p, hashErr(ps(v, 'hash')));
    },
  },
  FileContents: {
    compression: (v, p, out) => {
      if (!['', 'gzip'].includes(s(v, 'compression'))) out('error', p, Msg.compressionInvalid);
    },
    source: (v, p, out) => {
      out('error', p, urlErr(s(v, 'source')));
    },
  },
  File: {
    filesystem: (v, p, out) => {
      if (s(v, 'filesystem') === '') out('error', p, MsgV2.noFilesystem);
    },
    path: (v, p, out) => {
      out('error', p, pathErr(s(v, 'path')));
    },
    mode: (v, p, out) => {
      out('error', p, modeErr(n(v, 'mode')));
      if (n(v, 'mode') === null) out('warning', p, MsgV2.permissionsUnset);
    },
  },
  Directory: {
    filesystem: (v, p, out) => {
      if (s(v, 'filesystem') === '') out('error', p, MsgV2.noFilesystem);
    },
    path: (v, p, out) => {
      out('error', p, pathErr(s(v, 'path')));
    },
    mode: (v, p, out) => {
      out('error', p, modeErr(n(v, 'mode')));
      if (n(v, 'mode') === null) out('warning', p, MsgV2.permissionsUnset);
    },
  },
  Link: {
    filesystem: (v, p, out) => {
      if (s(v, 'filesystem') === '') out('error', p, MsgV2.noFilesystem);
    },
    path: (v, p, out) => {
      out('error', p, pathErr(s(v, 'path')));
    },
    target: (v, p, out) => {
      if (!b(v, 'hard')) out('error', p, pathErr(s(v, 'target')));
    },
  },
  Disk: {
    device: (v, p, out) => {
      out('error', p, s(v, 'device') === '' ? Msg.diskDeviceRequired : pathErr(s(v, 'device')));
    },
    partitions: (v, p, out) => {
      for (const e of partitionsErrors(list(v, 'partitions').map(obj))) out('error', p, e);
    },
  },
  Partition: {
    label: (v, p, out) => {
      const label = s(v, 'label');
      if (new TextEncoder().encode(label).length > 36) out('error', p, Msg.partitionLabelTooLong);
      else if (label.includes(':')) out('error', p, Msg.labelContainsColon);
    },
    guid: (v, p, out) => {
      out('error', p, GUID.test(s(v, 'guid')) ? undefined : Msg.doesntMatchGuidRegex);
    },
    typeGuid: (v, p, out) => {
      out('error', p, GUID.test(s(v, 'typeGuid')) ? undefined : Msg.doesntMatchGuidRegex);
    },
  },
  Filesystem: {
    path: (v, p, out) => {
      const path = ps(v, 'path');
      if (path !== null && !goPathIsAbs(path)) out('error', p, Msg.pathRelative);
    },
  },
  Mount: {
    device: (v, p, out) => {
      out('error', p, pathErr(s(v, 'device')));
    },
    label: (v, p, out) => {
      const label = ps(v, 'label');
      const limit = LABEL_LIMITS[s(v, 'format')];
      if (
        label !== null &&
        limit !== undefined &&
        new TextEncoder().encode(label).length > limit[0]
      ) {
        out('error', p, limit[1]);
      }
    },
  },
  Raid: {
    level: (v, p, out) => {
      const level = s(v, 'level');
      if (['linear', 'raid0', '0', 'stripe'].includes(level)) {
        if ((n(v, 'spares') ?? 0) !== 0) out('error', p, MsgV2.sparesUnsupported);
      } else if (
        ![
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
        ].includes(level)
      ) {
        out('error', p, Msg.unrecognizedRaidLevel);
      }
    },
    devices: (v, p, out) => {
      for (const d of list(v, 'devices')) out('error', p, pathErr(typeof d === 'string' ? d : ''));
    },
  },
  Unit: {
    contents: (v, p, out) => {
      unitContents({
        contents: s(v, 'contents'),
        name: s(v, 'name'),
        enabled: b(v, 'enable') || v['enabled'] === true,
        p,
        out,
      });
    },
    name: (v, p, out) => {
      if (!UNIT_EXTENSIONS.includes(goPathExt(s(v, 'name'))))
        out('error', p, Msg.invalidSystemdExt);
    },
  },
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The v2 reflection walk; `raw` is the JSON under the value (undefined when there is none). */
function walk({
  schema,
  t,
  v,
  raw,
  p,
  out,
}: {
  readonly schema: Schema;
  readonly t: GoType;
  readonly v: GoValue;
  readonly raw: unknown;
  readonly p: ConfigPath;
  readonly out: Out;
}): void {
  if (t.kind === 'ptr') {
    if (v !== null) walk({ schema, t: t.elem, v, raw, p, out });
    return;
  }
  if (t.kind === 'list') {
    (Array.isArray(v) ? (v as readonly GoValue[]) : []).forEach((item, i) => {
      walk({
        schema,
        t: t.elem,
        v: item,
        raw: Array.isArray(raw) ? raw[i] : undefined,
        p: [...p, i],
        out,
      });
    });
    return;
  }
  if (t.kind !== 'struct') return;
  const value = obj(v);
  let fatal = false;
  VALIDATE[t.struct]?.(value, p, (kind, path, message) => {
    if (kind === 'error' && message !== undefined) fatal = true;
    out(kind, path, message);
  });
  if (fatal) return;
  const d = structDef(schema, t.struct);
  const rawObj = isRecord(raw) ? raw : undefined;
  for (const f of d.fields) {
    VALIDATE_FIELD[t.struct]?.[f.json]?.(value, [...p, f.json], out);
    walk({
      schema,
      t: f.type,
      v: value[f.json] ?? null,
      raw: rawObj?.[f.json],
      p: [...p, f.json],
      out,
    });
  }
  if (rawObj === undefined) return;
  const tags = d.fields.map((f) => f.json);
  for (const key of Object.keys(rawObj)) {
    if (tags.includes(key)) continue;
    out('warning', [...p, key], `Config has unrecognized key: ${key}`);
    const typo = tags.find((tag) => tag.toLowerCase() === key.toLowerCase());
    if (typo !== undefined) out('info', [...p, key], `Did you mean ${typo} instead of ${key}`);
  }
}

/** Validates `raw` as a spec 2.2 config, whose Go types `schema` holds (specs/v2-2.ts). */
export function validateV22(raw: unknown, schema: Schema): ReportEntry[] {
  const decoded = decodeConfig(schema, raw);
  if (!decoded.ok) return [{ kind: 'error', path: [], message: decoded.message }];
  const entries: ReportEntry[] = [];
  walk({
    schema,
    t: { kind: 'struct', struct: 'Config' },
    v: decoded.value,
    raw,
    p: [],
    out: (kind, path, message) => {
      if (message !== undefined) entries.push({ kind, path, message });
    },
  });
  return entries;
}
