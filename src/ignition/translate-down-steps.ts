/**
 * The steps of translating a config down one spec, coreos/ign-converter's as MCO chains them:
 * 3.5 → 3.4 → 3.3 → 3.2 → 3.1, and 3.2 → 2.2 (the spec rows in ignition-specs.ts say which step
 * leaves which spec).
 *
 * Each step refuses, with ign-converter's message, a config using something the target spec
 * cannot express; values the target expresses by omission (e.g. LUKS `discard: false`) are
 * dropped, as upstream does. Like upstream's 3.4 → 3.3 step, modes lose setuid/setgid/sticky bits.
 */
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import { isRecord, toCanonicalForm, type JsonRecord } from './canonical-form.js';
import type { ConfigPath } from './report.js';
import { maskSpecialModeBits } from './special-mode-bits.js';
import { layoutFields, nestedStruct, type SpecLayout } from './specs/go-layout.js';
import type { DownStep, DownStepProblem } from './specs/spec-family.js';
import type {
  IgnitionFile,
  IgnitionConfig,
  IgnitionNode,
  NodeOwner,
  Passwd,
  Resource,
  Storage,
} from './types.js';

// ---------------------------------------------------------------------------------------------
// Walking a config

type Visit = (struct: string, value: JsonRecord, path: ConfigPath) => Problem | undefined;
type Problem = DownStepProblem;
type Specs = Parameters<DownStep>[1];

/** Calls `visit` on every struct value, parents before children, in Go field order. */
function visitStructs({
  layout,
  struct,
  value,
  path,
  visit,
}: {
  readonly layout: SpecLayout;
  readonly struct: string;
  readonly value: JsonRecord;
  readonly path: ConfigPath;
  readonly visit: Visit;
}): Problem | undefined {
  const here = visit(struct, value, path);
  if (here !== undefined) return here;
  for (const f of layoutFields(layout, struct)) {
    const nested = nestedStruct(f.type);
    const v = value[f.json];
    if (nested === undefined || v === undefined) continue;
    const items: readonly unknown[] = Array.isArray(v) ? v : [v];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const p = Array.isArray(v) ? [...path, f.json, i] : [...path, f.json];
      if (!isRecord(item)) continue;
      const found = visitStructs({ layout, struct: nested, value: item, path: p, visit });
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Values the target spec expresses by leaving the field out, keyed by index-free path. */
type Droppable = Readonly<Record<string, unknown>>;

/**
 * The first field set in `config` (of spec `from`) that spec `to` has no place for, unless it
 * holds the value that omission means.
 */
function firstUnrepresentable(
  config: JsonRecord,
  { from, to }: Specs,
  droppable: Droppable,
): Problem | undefined {
  const walk = (struct: string, value: JsonRecord, path: ConfigPath): Problem | undefined => {
    const kept = new Set(layoutFields(to, struct).map((f) => f.json));
    for (const f of layoutFields(from, struct)) {
      const v = value[f.json];
      if (v === undefined) continue;
      const p = [...path, f.json];
      if (!kept.has(f.json)) {
        const key = p.filter((s) => typeof s === 'string').join('.');
        if (key in droppable && droppable[key] === v) continue;
        return {
          path: p,
          message: `invalid field ${p.join('.')}: not supported in spec ${to.version}`,
        };
      }
      const nested = nestedStruct(f.type);
      if (nested === undefined) continue;
      const items: readonly unknown[] = Array.isArray(v) ? v : [v];
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        const found = isRecord(item)
          ? walk(nested, item, Array.isArray(v) ? [...p, i] : p)
          : undefined;
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return walk('Config', config, []);
}

/**
 * The last part of every step: refuses the first field set in `config` that `specs.to` has no
 * place for (unless it holds the value in `droppable` that omission means), then gives the config
 * in `specs.to`'s canonical form, carrying its version.
 */
export function carryDown(
  config: JsonRecord,
  specs: Specs,
  droppable: Droppable = {},
): Result<JsonRecord, Problem> {
  const problem = firstUnrepresentable(config, specs, droppable);
  if (problem !== undefined) return err(problem);
  const out = toCanonicalForm(config, specs.to);
  return ok({
    ...out,
    ignition: { ...(isRecord(out['ignition']) ? out['ignition'] : {}), version: specs.to.version },
  });
}

function list(v: unknown): readonly JsonRecord[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

function section(config: JsonRecord, name: string): JsonRecord {
  const s = config[name];
  return isRecord(s) ? s : {};
}

// ---------------------------------------------------------------------------------------------
// ign-converter steps

/** v35tov34: 3.4 has no LUKS `cex` (upstream means to refuse it; its check never fires). */
export const down35to34: DownStep = (config, specs) => {
  const luks = list(section(config, 'storage')['luks']);
  for (let i = 0; i < luks.length; i++) {
    if (isRecord(luks[i]?.['cex'])) {
      return err({
        path: ['storage', 'luks', i, 'cex'],
        message: "invalid input config: 'Cex' type is not supported in spec v3.4",
      });
    }
  }
  return carryDown(config, specs);
};

function urlScheme(source: string): string | undefined {
  return /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(source)?.[1]?.toLowerCase();
}

const check34to33: Visit = (struct, value, path) => {
  const fail = (field: string, what: string): Problem => ({
    path: [...path, field],
    message: `invalid input config: ${what} is not supported in spec v3.3`,
  });
  switch (struct) {
    case 'Tang': {
      const adv = value['advertisement'];
      return typeof adv === 'string' && adv !== ''
        ? fail('advertisement', 'tang offline provisioning')
        : undefined;
    }
    case 'Luks':
      if (value['discard'] === true) return fail('discard', 'luks discard');
      return asStrings(value['openOptions']).length > 0
        ? fail('openOptions', 'luks openOptions')
        : undefined;
    case 'Resource': {
      const src = value['source'];
      return typeof src === 'string' && urlScheme(src) === 'arn'
        ? fail('source', 'arn: scheme for s3')
        : undefined;
    }
    default:
      return undefined;
  }
};

function asStrings(v: unknown): readonly string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** v34tov33: no Tang advertisement, LUKS discard/openOptions, `arn:` sources; modes masked. */
export const down34to33: DownStep = (config, specs) => {
  const problem = visitStructs({
    layout: specs.from,
    struct: 'Config',
    value: config,
    path: [],
    visit: check34to33,
  });
  if (problem !== undefined) return err(problem);
  return carryDown(maskSpecialModeBits(config), specs, {
    'storage.luks.discard': false,
    'storage.luks.clevis.tang.advertisement': '',
  });
};

/**
 * v33tov32: no kernel arguments. Upstream's step also cannot carry LUKS entries, RAID arrays
 * without a level or links without a target (it panics on them), so those are refused here.
 */
export const down33to32: DownStep = (config, specs) => {
  const kargs = section(config, 'kernelArguments');
  if (asStrings(kargs['shouldExist']).length > 0 || asStrings(kargs['shouldNotExist']).length > 0) {
    return err({ path: ['kernelArguments'], message: 'KernelArguments is not supported on 3.2' });
  }
  const storage = section(config, 'storage');
  if (list(storage['luks']).length > 0) {
    return err({
      path: ['storage', 'luks'],
      message: 'invalid input config: luks cannot be translated to spec v3.2',
    });
  }
  const missing = (name: string, field: string, what: string): Problem | undefined => {
    const i = list(storage[name]).findIndex((e) => e[field] === undefined);
    return i < 0
      ? undefined
      : {
          path: ['storage', name, i, field],
          message: `invalid input config: ${what} is required in spec v3.2`,
        };
  };
  const problem =
    missing('raid', 'level', 'raid level') ?? missing('links', 'target', 'link target');
  if (problem !== undefined) return err(problem);
  return carryDown(config, specs);
};

/** v32tov31: no LUKS, no `shouldExist: false` users or groups, no partition resize. */
export const down32to31: DownStep = (config, specs) => {
  const storage = section(config, 'storage');
  const passwd = section(config, 'passwd');
  if (list(storage['luks']).length > 0)
    return err({ path: ['storage', 'luks'], message: 'LUKS is not supported on 3.1' });
  for (const kind of ['users', 'groups'] as const) {
    const i = list(passwd[kind]).findIndex((e) => e['shouldExist'] === false);
    if (i >= 0) {
      const what = kind === 'users' ? 'Users' : 'Groups';
      return err({
        path: ['passwd', kind, i, 'shouldExist'],
        message: `ShouldExist in Passwd.${what} is not supported on 3.1`,
      });
    }
  }
  const disks = list(storage['disks']);
  for (let d = 0; d < disks.length; d++) {
    const i = list(disks[d]?.['partitions']).findIndex((p) => p['resize'] === true);
    if (i >= 0) {
      return err({
        path: ['storage', 'disks', d, 'partitions', i, 'resize'],
        message: 'resize in Storage.Disks.Partitions is not supported on 3.1',
      });
    }
  }
  return carryDown(config, specs, {
    'passwd.users.shouldExist': true,
    'passwd.groups.shouldExist': true,
    'storage.disks.partitions.resize': false,
  });
};

// ---------------------------------------------------------------------------------------------
// v32tov22

function problem(path: ConfigPath, message: string): Result<never, Problem> {
  return err({ path, message });
}

/** The checks of v32tov22, in its order. */
function check32to22(c: IgnitionConfig): Problem | undefined {
  const refs: [ConfigPath, Resource | undefined, string][] = [
    ...(c.ignition.config?.merge ?? []).map((r, i): [ConfigPath, Resource, string] => [
      ['ignition', 'config', 'merge', i],
      r,
      'Ignition.Config.Merge',
    ]),
    [['ignition', 'config', 'replace'], c.ignition.config?.replace, 'Ignition.Config.Replace'],
    ...(c.ignition.security?.tls?.certificateAuthorities ?? []).map(
      (r, i): [ConfigPath, Resource, string] => [
        ['ignition', 'security', 'tls', 'certificateAuthorities', i],
        r,
        'Ignition.Security.TLS.CertificateAuthorities',
      ],
    ),
  ];
  for (const [path, r, where] of refs) {
    if (r?.compression !== undefined)
      return {
        path: [...path, 'compression'],
        message: `compression in ${where} is not supported on 2.2`,
      };
    if (r?.httpHeaders !== undefined)
      return {
        path: [...path, 'httpHeaders'],
        message: `HTTPHeaders in ${where} are not supported on 2.2`,
      };
  }
  return checkSections32to22(c);
}

function checkSections32to22(c: IgnitionConfig): Problem | undefined {
  const proxy = c.ignition.proxy;
  if (proxy !== undefined)
    return {
      path: ['ignition', 'proxy'],
      message: 'HTTP proxies in Ignition.Proxy are not supported on 2.2',
    };
  const storage = c.storage ?? {};
  if ((storage.luks ?? []).length > 0)
    return { path: ['storage', 'luks'], message: 'LUKS is not supported on 2.2' };
  for (const kind of ['users', 'groups'] as const) {
    const i = (c.passwd?.[kind] ?? []).findIndex((e) => e.shouldExist === false);
    if (i >= 0) {
      const what = kind === 'users' ? 'Users' : 'Groups';
      return {
        path: ['passwd', kind, i, 'shouldExist'],
        message: `ShouldExist in Passwd.${what} is not supported on 2.2`,
      };
    }
  }
  return checkStorage32to22(c);
}

function checkPartitions32to22(c: IgnitionConfig): Problem | undefined {
  for (const [d, disk] of (c.storage?.disks ?? []).entries()) {
    for (const [i, p] of (disk.partitions ?? []).entries()) {
      const path = ['storage', 'disks', d, 'partitions', i];
      if (p.sizeMiB !== undefined || p.startMiB !== undefined)
        return {
          path: [...path, p.sizeMiB !== undefined ? 'sizeMiB' : 'startMiB'],
          message: 'SizeMiB and StartMiB in Storage.Disks.Partitions is not supported on 2.2',
        };
      if (p.resize === true)
        return {
          path: [...path, 'resize'],
          message: 'resize in Storage.Disks.Partitions is not supported on 2.2',
        };
    }
  }
  return undefined;
}

function checkStorage32to22(c: IgnitionConfig): Problem | undefined {
  const storage = c.storage ?? {};
  const partitions = checkPartitions32to22(c);
  if (partitions !== undefined) return partitions;
  for (const [i, fs] of (storage.filesystems ?? []).entries()) {
    if (fs.mountOptions !== undefined)
      return {
        path: ['storage', 'filesystems', i, 'mountOptions'],
        message: 'MountOptions in Storage.Filesystems is not supported on 2.2',
      };
  }
  for (const [i, f] of (storage.files ?? []).entries()) {
    if (f.contents?.httpHeaders !== undefined)
      return {
        path: ['storage', 'files', i, 'contents', 'httpHeaders'],
        message: 'HTTPHeaders in Storage.Files.Contents are not supported on 2.2',
      };
    const a = (f.append ?? []).findIndex((r) => r.httpHeaders !== undefined);
    if (a >= 0)
      return {
        path: ['storage', 'files', i, 'append', a, 'httpHeaders'],
        message: 'HTTPHeaders in Storage.Files.Append.* are not supported on 2.2',
      };
  }
  return undefined;
}

/** Go dereferences these sources unchecked; a missing one cannot be translated. */
function missingSource(c: IgnitionConfig): Problem | undefined {
  const merge = c.ignition.config?.merge ?? [];
  const m = merge.findIndex((r) => r.source === undefined);
  if (m >= 0)
    return {
      path: ['ignition', 'config', 'merge', m, 'source'],
      message:
        'invalid input config: a merged config without a source cannot be translated to spec v2.2',
    };
  const cas = c.ignition.security?.tls?.certificateAuthorities ?? [];
  const i = cas.findIndex((r) => r.source === undefined);
  return i < 0
    ? undefined
    : {
        path: ['ignition', 'security', 'tls', 'certificateAuthorities', i, 'source'],
        message:
          'invalid input config: a certificate authority without a source cannot be translated to spec v2.2',
      };
}

/** v32tov22 on a spec 3.2 config (canonical form). */
export const down32to22: DownStep = (config, specs) => {
  const c = config as unknown as IgnitionConfig;
  const refused = check32to22(c) ?? missingSource(c);
  if (refused !== undefined) return problem(refused.path, refused.message);
  const out = {
    ignition: ignitionTo22(c.ignition, specs.to.version),
    passwd: passwdTo22(c.passwd ?? {}),
    systemd: {
      units: (c.systemd?.units ?? []).map((u) => ({
        name: u.name,
        enabled: u.enabled,
        mask: u.mask,
        contents: u.contents,
        dropins: u.dropins,
      })),
    },
    storage: storageTo22(c.storage ?? {}),
  };
  return ok(toCanonicalForm(out, specs.to));
};

function ignitionTo22(ign: IgnitionConfig['ignition'], version: string): JsonRecord {
  const ref = (r: Resource): JsonRecord => ({
    source: r.source ?? '',
    verification: r.verification,
  });
  const replace = ign.config?.replace;
  return {
    version,
    config: {
      replace: replace?.source === undefined ? undefined : ref(replace),
      append: (ign.config?.merge ?? []).map(ref),
    },
    security: {
      tls: { certificateAuthorities: (ign.security?.tls?.certificateAuthorities ?? []).map(ref) },
    },
    timeouts: ign.timeouts,
  };
}

function passwdTo22(passwd: Passwd): JsonRecord {
  return {
    users: (passwd.users ?? []).map((u) => ({
      name: u.name,
      passwordHash: u.passwordHash,
      sshAuthorizedKeys: u.sshAuthorizedKeys,
      uid: u.uid,
      gecos: u.gecos,
      homeDir: u.homeDir,
      noCreateHome: u.noCreateHome,
      primaryGroup: u.primaryGroup,
      groups: u.groups,
      noUserGroup: u.noUserGroup,
      noLogInit: u.noLogInit,
      shell: u.shell,
      system: u.system,
    })),
    groups: (passwd.groups ?? []).map((g) => ({
      name: g.name,
      gid: g.gid,
      passwordHash: g.passwordHash,
      system: g.system,
    })),
  };
}

function storageTo22(storage: Storage): JsonRecord {
  // Filesystems are named by their mount path so files can refer to them.
  const fsPaths = (storage.filesystems ?? []).flatMap((f) =>
    f.path === undefined ? [] : [f.path],
  );
  let unnamed = 1;
  return {
    disks: (storage.disks ?? []).map((d) => ({
      device: d.device,
      wipeTable: d.wipeTable,
      partitions: (d.partitions ?? []).map((p) => ({
        label: p.label,
        number: p.number,
        typeGuid: p.typeGuid,
        guid: p.guid,
      })),
    })),
    raid: (storage.raid ?? []).map((r) => ({
      name: r.name,
      level: r.level,
      devices: r.devices,
      spares: r.spares,
      options: r.options,
    })),
    filesystems: (storage.filesystems ?? []).map((f) => ({
      name: f.path ?? String(unnamed++),
      mount: {
        device: f.device,
        format: f.format,
        wipeFilesystem: f.wipeFilesystem,
        label: f.label,
        uuid: f.uuid,
        options: f.options,
      },
    })),
    files: (storage.files ?? []).flatMap((f) => translateFileTo22(f, fsPaths)),
    directories: (storage.directories ?? []).map((d) => ({
      ...translateNodeTo22(d, fsPaths),
      mode: d.mode,
    })),
    links: (storage.links ?? []).map((l) => ({
      ...translateNodeTo22(l, fsPaths),
      hard: l.hard,
      target: l.target,
    })),
  };
}

function owner(o: NodeOwner | undefined): JsonRecord | undefined {
  return o === undefined || Object.keys(o).length === 0 ? undefined : { id: o.id, name: o.name };
}

/** The node's filesystem is the one with the longest mount path prefixing its path, else root. */
function translateNodeTo22(n: IgnitionNode, fsPaths: readonly string[]): JsonRecord {
  let fsName = '';
  let path = n.path;
  for (const fs of fsPaths) {
    if (n.path.startsWith(fs) && fs.length > fsName.length) {
      fsName = fs;
      path = n.path.slice(fs.length);
    }
  }
  return {
    filesystem: fsName === '' ? 'root' : fsName,
    path,
    overwrite: n.overwrite,
    user: owner(n.user),
    group: owner(n.group),
  };
}

/** One spec 2 file for the contents (if any) and one `append: true` file per appended part. */
function translateFileTo22(f: IgnitionFile, fsPaths: readonly string[]): JsonRecord[] {
  // Spec 3 files do not overwrite by default; spec 2 files do, so unset becomes false.
  const node = { ...translateNodeTo22(f, fsPaths), overwrite: f.overwrite ?? false };
  const contents = (r: Resource): JsonRecord => ({
    compression: r.compression,
    source: r.source,
    verification: r.verification,
  });
  const out: JsonRecord[] = [];
  if (f.contents?.source !== undefined)
    out.push({ ...node, mode: f.mode, contents: contents(f.contents) });
  for (const a of f.append ?? []) {
    out.push({ ...node, overwrite: false, mode: f.mode, append: true, contents: contents(a) });
  }
  return out;
}
