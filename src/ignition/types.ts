/**
 * The Ignition config types: TypeScript interfaces of spec 3.5 (`IgnitionConfig`, the internal
 * representation every config is translated up to) and spec 2.2 (`IgnitionConfigV2`), plus, as
 * data, the Go struct layout of every supported spec (coreos/ignition `config/vX_Y/types/schema.go`).
 *
 * The layout tables drive parsing (which keys exist, Go zero values), serialization (field order,
 * `omitempty`), merging (list keys) and translation (which fields a lower spec cannot hold).
 *
 * Canonical form, shared by every module here: a Go pointer is present iff non-nil; a Go
 * non-pointer field tagged without `omitempty` (e.g. file `path`, unit `name`) is always present;
 * a non-pointer `omitempty` scalar, struct or list is present iff it is not the zero value.
 * Configs of specs 3.0–3.4 use the 3.5 interfaces (they are structural subsets) and carry their
 * own `ignition.version`.
 */
import type { SpecVersion } from './versions.js';

// ---------------------------------------------------------------------------------------------
// Spec 3.5 (also used for 3.0–3.4 configs)

export interface IgnitionConfig {
  ignition: Ignition;
  kernelArguments?: KernelArguments;
  passwd?: Passwd;
  storage?: Storage;
  systemd?: Systemd;
}

interface Ignition {
  config?: IgnitionConfigRefs;
  proxy?: Proxy;
  security?: Security;
  timeouts?: Timeouts;
  version: string;
}

/** `ignition.config`: configs to merge into or replace this one. */
interface IgnitionConfigRefs {
  merge?: Resource[];
  replace?: Resource;
}

interface Proxy {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string[];
}

interface Security {
  tls?: Tls;
}

interface Tls {
  certificateAuthorities?: Resource[];
}

interface Timeouts {
  httpResponseHeaders?: number;
  httpTotal?: number;
}

interface KernelArguments {
  shouldExist?: string[];
  shouldNotExist?: string[];
}

export interface Passwd {
  groups?: PasswdGroup[];
  users?: PasswdUser[];
}

interface PasswdGroup {
  gid?: number;
  name: string;
  passwordHash?: string;
  shouldExist?: boolean;
  system?: boolean;
}

export interface PasswdUser {
  gecos?: string;
  groups?: string[];
  homeDir?: string;
  name: string;
  noCreateHome?: boolean;
  noLogInit?: boolean;
  noUserGroup?: boolean;
  passwordHash?: string;
  primaryGroup?: string;
  sshAuthorizedKeys?: string[];
  shell?: string;
  shouldExist?: boolean;
  system?: boolean;
  uid?: number;
}

export interface Storage {
  directories?: IgnitionDirectory[];
  disks?: Disk[];
  files?: IgnitionFile[];
  filesystems?: Filesystem[];
  links?: IgnitionLink[];
  luks?: Luks[];
  raid?: Raid[];
}

/** Fields shared by files, directories and links (Go `Node`). */
export interface IgnitionNode {
  group?: NodeOwner;
  overwrite?: boolean;
  path: string;
  user?: NodeOwner;
}

export interface NodeOwner {
  id?: number;
  name?: string;
}

interface IgnitionDirectory extends IgnitionNode {
  mode?: number;
}

export interface IgnitionFile extends IgnitionNode {
  append?: Resource[];
  contents?: Resource;
  mode?: number;
}

interface IgnitionLink extends IgnitionNode {
  hard?: boolean;
  /** Always present (possibly "") in specs 3.0–3.2, where Go's field is not a pointer. */
  target?: string;
}

interface Disk {
  device: string;
  partitions?: Partition[];
  wipeTable?: boolean;
}

interface Partition {
  guid?: string;
  label?: string;
  /** Go `int` with omitempty: absent means 0. */
  number?: number;
  resize?: boolean;
  shouldExist?: boolean;
  sizeMiB?: number;
  startMiB?: number;
  typeGuid?: string;
  wipePartitionEntry?: boolean;
}

interface Filesystem {
  device: string;
  format?: string;
  label?: string;
  mountOptions?: string[];
  options?: string[];
  path?: string;
  uuid?: string;
  wipeFilesystem?: boolean;
}

interface Luks {
  cex?: Cex;
  clevis?: Clevis;
  device?: string;
  discard?: boolean;
  keyFile?: Resource;
  label?: string;
  name: string;
  openOptions?: string[];
  options?: string[];
  uuid?: string;
  wipeVolume?: boolean;
}

interface Cex {
  enabled?: boolean;
}

interface Clevis {
  custom?: ClevisCustom;
  tang?: Tang[];
  threshold?: number;
  tpm2?: boolean;
}

interface ClevisCustom {
  config?: string;
  needsNetwork?: boolean;
  pin?: string;
}

interface Tang {
  advertisement?: string;
  thumbprint?: string;
  /** Go `string` with omitempty: absent means "". */
  url?: string;
}

interface Raid {
  devices?: string[];
  level?: string;
  name: string;
  options?: string[];
  spares?: number;
}

export interface Resource {
  compression?: string;
  httpHeaders?: HttpHeader[];
  source?: string;
  verification?: Verification;
}

interface HttpHeader {
  name: string;
  value?: string;
}

interface Verification {
  hash?: string;
}

interface Systemd {
  units?: IgnitionUnit[];
}

export interface IgnitionUnit {
  contents?: string;
  dropins?: IgnitionDropin[];
  enabled?: boolean;
  mask?: boolean;
  name: string;
}

interface IgnitionDropin {
  contents?: string;
  name: string;
}

// ---------------------------------------------------------------------------------------------
// Spec 2.2 (coreos/ignition config/v2_2/types): every field but `ignition` is omitempty, so a zero
// scalar is simply absent.

export interface IgnitionConfigV2 {
  ignition: IgnitionV2;
  networkd?: NetworkdV2;
  passwd?: PasswdV2;
  storage?: StorageV2;
  systemd?: SystemdV2;
}

interface IgnitionV2 {
  config?: { append?: ConfigReferenceV2[]; replace?: ConfigReferenceV2 };
  security?: { tls?: { certificateAuthorities?: ConfigReferenceV2[] } };
  timeouts?: Timeouts;
  version?: string;
}

export interface ConfigReferenceV2 {
  source?: string;
  verification?: Verification;
}

interface NetworkdV2 {
  units?: { contents?: string; dropins?: DropinV2[]; name?: string }[];
}

interface PasswdV2 {
  groups?: PasswdGroupV2[];
  users?: PasswdUserV2[];
}

interface PasswdGroupV2 {
  gid?: number;
  name?: string;
  passwordHash?: string;
  system?: boolean;
}

interface UserCreateV2 {
  gecos?: string;
  groups?: string[];
  homeDir?: string;
  noCreateHome?: boolean;
  noLogInit?: boolean;
  noUserGroup?: boolean;
  primaryGroup?: string;
  shell?: string;
  system?: boolean;
  uid?: number;
}

export interface PasswdUserV2 extends UserCreateV2 {
  create?: UserCreateV2;
  name?: string;
  passwordHash?: string;
  sshAuthorizedKeys?: string[];
}

export interface StorageV2 {
  directories?: DirectoryV2[];
  disks?: DiskV2[];
  files?: FileV2[];
  filesystems?: FilesystemV2[];
  links?: LinkV2[];
  raid?: RaidV2[];
}

export interface NodeV2 {
  filesystem?: string;
  group?: NodeOwner;
  overwrite?: boolean;
  path?: string;
  user?: NodeOwner;
}

interface DirectoryV2 extends NodeV2 {
  mode?: number;
}

export interface FileV2 extends NodeV2 {
  append?: boolean;
  contents?: { compression?: string; source?: string; verification?: Verification };
  mode?: number;
}

interface LinkV2 extends NodeV2 {
  hard?: boolean;
  target?: string;
}

interface DiskV2 {
  device?: string;
  partitions?: PartitionV2[];
  wipeTable?: boolean;
}

interface PartitionV2 {
  guid?: string;
  label?: string;
  number?: number;
  size?: number;
  start?: number;
  typeGuid?: string;
}

interface FilesystemV2 {
  mount?: MountV2;
  name?: string;
  path?: string;
}

interface MountV2 {
  create?: { force?: boolean; options?: string[] };
  device?: string;
  format?: string;
  label?: string;
  options?: string[];
  uuid?: string;
  wipeFilesystem?: boolean;
}

interface RaidV2 {
  devices?: string[];
  level?: string;
  name?: string;
  options?: string[];
  spares?: number;
}

interface SystemdV2 {
  units?: UnitV2[];
}

export interface UnitV2 {
  contents?: string;
  dropins?: DropinV2[];
  enable?: boolean;
  enabled?: boolean;
  mask?: boolean;
  name?: string;
}

interface DropinV2 {
  contents?: string;
  name?: string;
}

// ---------------------------------------------------------------------------------------------
// Go struct layouts, as data.

/** Go scalar kinds that appear in the specs. */
export type Scalar = 'string' | 'int' | 'bool';

export type FieldType =
  /** Go non-pointer scalar (`string`, `int`, `bool`). */
  | { readonly kind: 'value'; readonly scalar: Scalar }
  /** Go `*string`, `*int`, `*bool`: nil is distinct from the zero value. */
  | { readonly kind: 'pointer'; readonly scalar: Scalar }
  /** Go struct value. */
  | { readonly kind: 'struct'; readonly struct: string }
  /** Go `*Struct`: an empty but present struct is distinct from nil. */
  | { readonly kind: 'structPointer'; readonly struct: string }
  /** Go slice of scalars or structs. */
  | { readonly kind: 'list'; readonly item: Scalar | { readonly struct: string } };

export interface FieldSpec {
  /** The JSON name (Go `json` tag). */
  readonly json: string;
  readonly type: FieldType;
  /** Go `omitempty`: marshal skips the zero value (clarketm/json also skips empty structs). */
  readonly omitEmpty: boolean;
}

/** Struct name → fields in Go declaration order (embedded structs flattened). */
type StructTable = Readonly<Record<string, readonly FieldSpec[]>>;

/** A spec's layout; the root struct is always `Config`. */
export interface SpecLayout {
  readonly version: SpecVersion;
  readonly structs: StructTable;
}

/**
 * Field declarations in a compact Go-like notation: `'name type'`, where type is `string`, `int`,
 * `bool`, `*scalar`, `Struct`, `*Struct` or `[]item`, and a `!` after the name marks a field
 * whose Go json tag has no `omitempty`.
 */
type Decl = string;
type DeclTable = Readonly<Record<string, readonly Decl[]>>;

const SCALARS: readonly string[] = ['string', 'int', 'bool'];

function isScalar(s: string): s is Scalar {
  return SCALARS.includes(s);
}

function parseType(t: string): FieldType {
  if (t.startsWith('[]')) {
    const item = t.slice(2);
    return { kind: 'list', item: isScalar(item) ? item : { struct: item } };
  }
  if (t.startsWith('*')) {
    const inner = t.slice(1);
    return isScalar(inner)
      ? { kind: 'pointer', scalar: inner }
      : { kind: 'structPointer', struct: inner };
  }
  return isScalar(t) ? { kind: 'value', scalar: t } : { kind: 'struct', struct: t };
}

function parseDecl(decl: Decl): FieldSpec {
  const [rawName = '', type = ''] = decl.split(' ');
  const required = rawName.endsWith('!');
  return {
    json: required ? rawName.slice(0, -1) : rawName,
    type: parseType(type),
    omitEmpty: !required,
  };
}

function compile(table: DeclTable): StructTable {
  const out: Record<string, readonly FieldSpec[]> = {};
  for (const [name, decls] of Object.entries(table)) out[name] = decls.map(parseDecl);
  return out;
}

const NODE: readonly Decl[] = [
  'group NodeOwner',
  'overwrite *bool',
  'path! string',
  'user NodeOwner',
];

/** config/v3_5/types/schema.go */
const DECLS_3_5: DeclTable = {
  Config: [
    'ignition! Ignition',
    'kernelArguments KernelArguments',
    'passwd Passwd',
    'storage Storage',
    'systemd Systemd',
  ],
  Ignition: [
    'config IgnitionConfig',
    'proxy Proxy',
    'security Security',
    'timeouts Timeouts',
    'version! string',
  ],
  IgnitionConfig: ['merge []Resource', 'replace Resource'],
  Proxy: ['httpProxy *string', 'httpsProxy *string', 'noProxy []string'],
  Security: ['tls TLS'],
  TLS: ['certificateAuthorities []Resource'],
  Timeouts: ['httpResponseHeaders *int', 'httpTotal *int'],
  KernelArguments: ['shouldExist []string', 'shouldNotExist []string'],
  Passwd: ['groups []PasswdGroup', 'users []PasswdUser'],
  PasswdGroup: [
    'gid *int',
    'name! string',
    'passwordHash *string',
    'shouldExist *bool',
    'system *bool',
  ],
  PasswdUser: [
    'gecos *string',
    'groups []string',
    'homeDir *string',
    'name! string',
    'noCreateHome *bool',
    'noLogInit *bool',
    'noUserGroup *bool',
    'passwordHash *string',
    'primaryGroup *string',
    'sshAuthorizedKeys []string',
    'shell *string',
    'shouldExist *bool',
    'system *bool',
    'uid *int',
  ],
  Storage: [
    'directories []Directory',
    'disks []Disk',
    'files []File',
    'filesystems []Filesystem',
    'links []Link',
    'luks []Luks',
    'raid []Raid',
  ],
  Directory: [...NODE, 'mode *int'],
  File: [...NODE, 'append []Resource', 'contents Resource', 'mode *int'],
  Link: [...NODE, 'hard *bool', 'target *string'],
  NodeOwner: ['id *int', 'name *string'],
  Disk: ['device! string', 'partitions []Partition', 'wipeTable *bool'],
  Partition: [
    'guid *string',
    'label *string',
    'number int',
    'resize *bool',
    'shouldExist *bool',
    'sizeMiB *int',
    'startMiB *int',
    'typeGuid *string',
    'wipePartitionEntry *bool',
  ],
  Filesystem: [
    'device! string',
    'format *string',
    'label *string',
    'mountOptions []string',
    'options []string',
    'path *string',
    'uuid *string',
    'wipeFilesystem *bool',
  ],
  Luks: [
    'cex Cex',
    'clevis Clevis',
    'device *string',
    'discard *bool',
    'keyFile Resource',
    'label *string',
    'name! string',
    'openOptions []string',
    'options []string',
    'uuid *string',
    'wipeVolume *bool',
  ],
  Cex: ['enabled *bool'],
  Clevis: ['custom ClevisCustom', 'tang []Tang', 'threshold *int', 'tpm2 *bool'],
  ClevisCustom: ['config *string', 'needsNetwork *bool', 'pin *string'],
  Tang: ['advertisement *string', 'thumbprint *string', 'url string'],
  Raid: ['devices []string', 'level *string', 'name! string', 'options []string', 'spares *int'],
  Resource: [
    'compression *string',
    'httpHeaders []HTTPHeader',
    'source *string',
    'verification Verification',
  ],
  HTTPHeader: ['name! string', 'value *string'],
  Verification: ['hash *string'],
  Systemd: ['units []Unit'],
  Unit: ['contents *string', 'dropins []Dropin', 'enabled *bool', 'mask *bool', 'name! string'],
  Dropin: ['contents *string', 'name! string'],
};

/** Removes structs from a table (so a lower spec's table has no stale entries). */
function without(table: DeclTable, ...names: string[]): DeclTable {
  return Object.fromEntries(Object.entries(table).filter(([n]) => !names.includes(n)));
}

function drop(decls: readonly Decl[] | undefined, ...names: string[]): readonly Decl[] {
  return (decls ?? []).filter((d) => !names.includes((d.split(' ')[0] ?? '').replace('!', '')));
}

/** 3.4: no LUKS `cex`. */
const DECLS_3_4: DeclTable = {
  ...without(DECLS_3_5, 'Cex'),
  Luks: drop(DECLS_3_5['Luks'], 'cex'),
};

/** 3.3: no LUKS discard/openOptions, no Tang advertisement; `version` is omitempty. */
const DECLS_3_3: DeclTable = {
  ...DECLS_3_4,
  Ignition: [...drop(DECLS_3_4['Ignition'], 'version'), 'version string'],
  Luks: drop(DECLS_3_4['Luks'], 'discard', 'openOptions'),
  Tang: ['thumbprint *string', 'url string'],
};

/**
 * 3.2: no kernelArguments; link target, RAID level and devices are required non-pointers; LUKS
 * Clevis and its custom pin are pointers, the custom config and pin required strings.
 */
const DECLS_3_2: DeclTable = {
  ...without(DECLS_3_3, 'KernelArguments', 'ClevisCustom'),
  Config: drop(DECLS_3_3['Config'], 'kernelArguments'),
  Link: [...NODE, 'hard *bool', 'target! string'],
  Raid: ['devices! []string', 'level! string', 'name! string', 'options []string', 'spares *int'],
  Luks: [
    'clevis *Clevis',
    'device *string',
    'keyFile Resource',
    'label *string',
    'name! string',
    'options []string',
    'uuid *string',
    'wipeVolume *bool',
  ],
  Clevis: ['custom *Custom', 'tang []Tang', 'threshold *int', 'tpm2 *bool'],
  Custom: ['config! string', 'needsNetwork *bool', 'pin! string'],
};

/** 3.1: no LUKS, no partition resize, no user/group shouldExist. */
const DECLS_3_1: DeclTable = {
  ...without(DECLS_3_2, 'Luks', 'Clevis', 'Custom', 'Tang'),
  Storage: drop(DECLS_3_2['Storage'], 'luks'),
  Partition: drop(DECLS_3_2['Partition'], 'resize'),
  PasswdGroup: drop(DECLS_3_2['PasswdGroup'], 'shouldExist'),
  PasswdUser: drop(DECLS_3_2['PasswdUser'], 'shouldExist'),
};

/**
 * 3.0: no proxy, no HTTP headers, no filesystem mountOptions; config references, CA references
 * and file contents are separate structs (a config source is a pointer without omitempty).
 */
const DECLS_3_0: DeclTable = {
  ...without(DECLS_3_1, 'Proxy', 'Resource', 'HTTPHeader'),
  Ignition: ['config IgnitionConfig', 'security Security', 'timeouts Timeouts', 'version string'],
  IgnitionConfig: ['merge []ConfigReference', 'replace ConfigReference'],
  ConfigReference: ['source! *string', 'verification Verification'],
  TLS: ['certificateAuthorities []CaReference'],
  CaReference: ['source! string', 'verification Verification'],
  File: [...NODE, 'append []FileContents', 'contents FileContents', 'mode *int'],
  FileContents: ['compression *string', 'source *string', 'verification Verification'],
  Filesystem: drop(DECLS_3_1['Filesystem'], 'mountOptions'),
};

const NODE_2: readonly Decl[] = [
  'filesystem string',
  'group *NodeOwner',
  'overwrite *bool',
  'path string',
  'user *NodeOwner',
];

/** config/v2_2/types/schema.go (as vendored by MCO). */
const DECLS_2_2: DeclTable = {
  Config: [
    'ignition! Ignition',
    'networkd Networkd',
    'passwd Passwd',
    'storage Storage',
    'systemd Systemd',
  ],
  Ignition: ['config IgnitionConfig', 'security Security', 'timeouts Timeouts', 'version string'],
  IgnitionConfig: ['append []ConfigReference', 'replace *ConfigReference'],
  ConfigReference: ['source string', 'verification Verification'],
  Security: ['tls TLS'],
  TLS: ['certificateAuthorities []ConfigReference'],
  Timeouts: ['httpResponseHeaders *int', 'httpTotal *int'],
  Verification: ['hash *string'],
  Networkd: ['units []NetworkdUnit'],
  NetworkdUnit: ['contents string', 'dropins []Dropin', 'name string'],
  Passwd: ['groups []PasswdGroup', 'users []PasswdUser'],
  PasswdGroup: ['gid *int', 'name string', 'passwordHash string', 'system bool'],
  PasswdUser: [
    'create *UserCreate',
    'gecos string',
    'groups []string',
    'homeDir string',
    'name string',
    'noCreateHome bool',
    'noLogInit bool',
    'noUserGroup bool',
    'passwordHash *string',
    'primaryGroup string',
    'sshAuthorizedKeys []string',
    'shell string',
    'system bool',
    'uid *int',
  ],
  UserCreate: [
    'gecos string',
    'groups []string',
    'homeDir string',
    'noCreateHome bool',
    'noLogInit bool',
    'noUserGroup bool',
    'primaryGroup string',
    'shell string',
    'system bool',
    'uid *int',
  ],
  Storage: [
    'directories []Directory',
    'disks []Disk',
    'files []File',
    'filesystems []Filesystem',
    'links []Link',
    'raid []Raid',
  ],
  NodeOwner: ['id *int', 'name string'],
  Directory: [...NODE_2, 'mode *int'],
  File: [...NODE_2, 'append bool', 'contents FileContents', 'mode *int'],
  FileContents: ['compression string', 'source string', 'verification Verification'],
  Link: [...NODE_2, 'hard bool', 'target string'],
  Disk: ['device string', 'partitions []Partition', 'wipeTable bool'],
  Partition: [
    'guid string',
    'label string',
    'number int',
    'size int',
    'start int',
    'typeGuid string',
  ],
  Filesystem: ['mount *Mount', 'name string', 'path *string'],
  Mount: [
    'create *Create',
    'device string',
    'format string',
    'label *string',
    'options []string',
    'uuid *string',
    'wipeFilesystem bool',
  ],
  Create: ['force bool', 'options []string'],
  Raid: ['devices []string', 'level string', 'name string', 'options []string', 'spares int'],
  Systemd: ['units []Unit'],
  Unit: [
    'contents string',
    'dropins []Dropin',
    'enable bool',
    'enabled *bool',
    'mask bool',
    'name string',
  ],
  Dropin: ['contents string', 'name string'],
};

/** The Go layout of every supported spec. */
export const SpecLayouts: Readonly<Record<SpecVersion, SpecLayout>> = {
  '2.2.0': { version: '2.2.0', structs: compile(DECLS_2_2) },
  '3.0.0': { version: '3.0.0', structs: compile(DECLS_3_0) },
  '3.1.0': { version: '3.1.0', structs: compile(DECLS_3_1) },
  '3.2.0': { version: '3.2.0', structs: compile(DECLS_3_2) },
  '3.3.0': { version: '3.3.0', structs: compile(DECLS_3_3) },
  '3.4.0': { version: '3.4.0', structs: compile(DECLS_3_4) },
  '3.5.0': { version: '3.5.0', structs: compile(DECLS_3_5) },
};

/** Fields of one struct in one spec; empty when the spec has no such struct. */
export function structFields(version: SpecVersion, struct: string): readonly FieldSpec[] {
  return STRUCT_MAPS[version].get(struct) ?? NO_FIELDS;
}

const NO_FIELDS: readonly FieldSpec[] = [];

/** The layouts as maps: every walk over a config looks fields up per struct, so this is hot. */
const STRUCT_MAPS: Readonly<Record<SpecVersion, ReadonlyMap<string, readonly FieldSpec[]>>> = {
  '2.2.0': structMap('2.2.0'),
  '3.0.0': structMap('3.0.0'),
  '3.1.0': structMap('3.1.0'),
  '3.2.0': structMap('3.2.0'),
  '3.3.0': structMap('3.3.0'),
  '3.4.0': structMap('3.4.0'),
  '3.5.0': structMap('3.5.0'),
};

function structMap(version: SpecVersion): ReadonlyMap<string, readonly FieldSpec[]> {
  return new Map(Object.entries(SpecLayouts[version].structs));
}

/**
 * Every JSON path a spec can hold, e.g. `storage.files.contents.compression` (list items are
 * not indexed): the data translation-down uses to find fields a lower spec cannot represent.
 */
export function fieldPaths(version: SpecVersion): readonly string[] {
  const out: string[] = [];
  const walk = (struct: string, prefix: string): void => {
    for (const f of structFields(version, struct)) {
      const p = prefix === '' ? f.json : `${prefix}.${f.json}`;
      out.push(p);
      const nested = nestedStruct(f.type);
      if (nested !== undefined) walk(nested, p);
    }
  };
  walk('Config', '');
  return out;
}

/** The struct a field holds (directly, by pointer or as list items), if any. */
export function nestedStruct(type: FieldType): string | undefined {
  switch (type.kind) {
    case 'struct':
    case 'structPointer':
      return type.struct;
    case 'list':
      return typeof type.item === 'string' ? undefined : type.item.struct;
    case 'value':
    case 'pointer':
      return undefined;
  }
}

/** Go zero value of a scalar. */
export function zeroOf(scalar: Scalar): string | number | boolean {
  switch (scalar) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'bool':
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Canonical form

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The canonical form (see the file comment) of a config of `version`: keeps only the spec's
 * fields, fills absent required scalars with Go's zero value, drops zero `omitempty` scalars,
 * empty structs and empty lists. The input must already be type-valid for the spec (null is
 * read as absent, as Go's decoder does); the result shares no objects with the input.
 */
export function canonicalize(value: unknown, version: SpecVersion): JsonRecord {
  return canonStruct(version, 'Config', value);
}

function canonStruct(version: SpecVersion, struct: string, value: unknown): JsonRecord {
  const src = isRecord(value) ? value : {};
  const out: JsonRecord = {};
  for (const f of structFields(version, struct)) {
    const v = src[f.json];
    // An absent pointer or list stays absent: the common case, decided without a call.
    if (v == null && f.type.kind !== 'value' && f.type.kind !== 'struct') continue;
    const c = canonField(version, f, v);
    if (c !== undefined) out[f.json] = c;
  }
  return out;
}

/** `Object.keys(rec).length > 0` without building the array. */
function hasKeys(rec: JsonRecord): boolean {
  for (const _ in rec) return true;
  return false;
}

function canonField(version: SpecVersion, f: FieldSpec, v: unknown): unknown {
  const t = f.type;
  switch (t.kind) {
    case 'value': {
      const x = v ?? zeroOf(t.scalar);
      return f.omitEmpty && x === zeroOf(t.scalar) ? undefined : x;
    }
    case 'pointer':
      return v ?? undefined;
    case 'struct': {
      const s = canonStruct(version, t.struct, v);
      return !f.omitEmpty || hasKeys(s) ? s : undefined;
    }
    case 'structPointer':
      return v == null ? undefined : canonStruct(version, t.struct, v);
    case 'list': {
      if (!Array.isArray(v)) return undefined;
      const item = t.item;
      const items = v.map((i: unknown) =>
        typeof item === 'string' ? (i ?? zeroOf(item)) : canonStruct(version, item.struct, i),
      );
      return f.omitEmpty && items.length === 0 ? undefined : items;
    }
  }
}

/**
 * `canonicalize(value, version)`, copy-on-write: the parts of `value` that are canonical already
 * are returned as they are (the whole input, for most configs), only the others are rebuilt. The
 * result equals canonicalize's, but shares objects with the input, and object keys keep the
 * input's order where nothing changed (no output depends on it: serialization orders fields).
 */
export function canonicalizeShared(value: unknown, version: SpecVersion): JsonRecord {
  return canonStructShared(version, 'Config', value);
}

function canonStructShared(version: SpecVersion, struct: string, value: unknown): JsonRecord {
  if (!isRecord(value)) return canonStruct(version, struct, value);
  const fields = structFields(version, struct);
  let out: JsonRecord | undefined; // built from the first field that changes
  let kept = 0;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as FieldSpec;
    const v = value[f.json];
    const c = v === undefined ? canonField(version, f, v) : canonFieldShared(version, f, v);
    if (out === undefined && c === v) {
      if (c !== undefined) kept++;
      continue;
    }
    out ??= pickFields(value, fields.slice(0, i));
    if (c !== undefined) out[f.json] = c;
  }
  if (out !== undefined) return out;
  // Every field as it was: canonical, unless the object holds other keys as well.
  return Object.keys(value).length === kept ? value : pickFields(value, fields);
}

function pickFields(value: JsonRecord, fields: readonly FieldSpec[]): JsonRecord {
  const out: JsonRecord = {};
  for (const f of fields) if (value[f.json] !== undefined) out[f.json] = value[f.json];
  return out;
}

function canonFieldShared(version: SpecVersion, f: FieldSpec, v: unknown): unknown {
  const t = f.type;
  switch (t.kind) {
    case 'struct': {
      const s = canonStructShared(version, t.struct, v);
      return !f.omitEmpty || hasKeys(s) ? s : undefined;
    }
    case 'structPointer':
      return v == null ? undefined : canonStructShared(version, t.struct, v);
    case 'list': {
      if (!Array.isArray(v)) return undefined;
      const item = t.item;
      const items = v.map((i: unknown) =>
        typeof item === 'string' ? (i ?? zeroOf(item)) : canonStructShared(version, item.struct, i),
      );
      if (f.omitEmpty && items.length === 0) return undefined;
      return items.every((x, k) => x === v[k]) ? v : items;
    }
    case 'value':
    case 'pointer':
      return canonField(version, f, v);
  }
}

// ---------------------------------------------------------------------------------------------
// Re-canonicalizing for a neighbouring spec (translation up)

/**
 * `canonicalize(value, to)` for a value already in canonical form for spec `from`. The parts whose
 * Go layout is the same in both specs are already canonical for `to` (canonicalizing is
 * idempotent), so they are kept as they are, shared rather than copied; only the parts whose
 * layout changed are walked. Translating up one spec at a time then costs little per step.
 */
export function recanonicalize(value: JsonRecord, from: SpecVersion, to: SpecVersion): JsonRecord {
  return sameLayout(from, to, 'Config') ? value : recanonStruct(from, to, 'Config', value);
}

function recanonStruct(
  from: SpecVersion,
  to: SpecVersion,
  struct: string,
  value: unknown,
): JsonRecord {
  const src = isRecord(value) ? value : {};
  const out: JsonRecord = {};
  const before = structFields(from, struct);
  for (const f of structFields(to, struct)) {
    const old = before.find((x) => x.json === f.json);
    const v =
      old !== undefined && sameField(old, f)
        ? recanonField(from, to, f, src[f.json])
        : canonField(to, f, src[f.json]);
    if (v !== undefined) out[f.json] = v;
  }
  return out;
}

/** A field declared alike in both specs: canonical for `from`, it needs only its struct redone. */
function recanonField(from: SpecVersion, to: SpecVersion, f: FieldSpec, v: unknown): unknown {
  const nested = nestedStruct(f.type);
  if (v === undefined || nested === undefined || sameLayout(from, to, nested)) return v;
  if (f.type.kind === 'list') {
    if (!Array.isArray(v) || v.length === 0) return canonField(to, f, v);
    return v.map((i: unknown) => recanonStruct(from, to, nested, i));
  }
  if (!isRecord(v)) return canonField(to, f, v);
  const s = recanonStruct(from, to, nested, v);
  return f.type.kind === 'struct' && f.omitEmpty && !hasKeys(s) ? undefined : s;
}

function sameField(a: FieldSpec, b: FieldSpec): boolean {
  return a.json === b.json && a.omitEmpty === b.omitEmpty && sameType(a.type, b.type);
}

function sameType(a: FieldType, b: FieldType): boolean {
  switch (a.kind) {
    case 'value':
    case 'pointer':
      return b.kind === a.kind && b.scalar === a.scalar;
    case 'struct':
    case 'structPointer':
      return b.kind === a.kind && b.struct === a.struct;
    case 'list':
      return (
        b.kind === 'list' &&
        nestedStruct(b) === nestedStruct(a) &&
        typeof b.item === typeof a.item &&
        (typeof a.item !== 'string' || a.item === b.item)
      );
  }
}

/** from → to → struct → whether it is laid out alike (nested maps: no key strings to build). */
const SAME_LAYOUT = new Map<SpecVersion, Map<SpecVersion, Map<string, boolean>>>();

function sameLayoutMemo(from: SpecVersion, to: SpecVersion): Map<string, boolean> {
  let byTo = SAME_LAYOUT.get(from);
  if (byTo === undefined) {
    byTo = new Map();
    SAME_LAYOUT.set(from, byTo);
  }
  let memo = byTo.get(to);
  if (memo === undefined) {
    memo = new Map();
    byTo.set(to, memo);
  }
  return memo;
}

/** Whether `struct` and every struct it holds are declared alike in both specs (memoized). */
function sameLayout(from: SpecVersion, to: SpecVersion, struct: string): boolean {
  const memo = sameLayoutMemo(from, to);
  let same = memo.get(struct);
  if (same === undefined) {
    const a = SpecLayouts[from].structs[struct];
    const b = SpecLayouts[to].structs[struct];
    same =
      a !== undefined &&
      b !== undefined &&
      a.length === b.length &&
      a.every((f, i) => {
        const g = b[i];
        const nested = nestedStruct(f.type);
        return (
          g !== undefined &&
          sameField(f, g) &&
          (nested === undefined || sameLayout(from, to, nested))
        );
      });
    memo.set(struct, same);
  }
  return same;
}
