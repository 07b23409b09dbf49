/**
 * The Ignition config types: TypeScript interfaces of spec 3.5 (`IgnitionConfig`, the internal
 * representation every config is translated up to) and spec 2.2 (`IgnitionConfigV2`); the layout
 * and canonical-form functions keyed by spec version are in spec-layouts.ts.
 *
 * The Go struct layout of every supported spec is data in specs/ (one source per spec, adr/0028);
 * it drives parsing (which keys exist, Go zero values), serialization (field order, `omitempty`),
 * merging (list keys), translation (which fields a lower spec cannot hold) and the validator's Go
 * types. Configs are held in canonical form (canonical-form.ts). Configs of specs 3.0–3.4 use the
 * 3.5 interfaces (they are structural subsets) and carry their own `ignition.version`.
 */

export { isRecord, type JsonRecord } from './canonical-form.js';
export { zeroOf, type FieldSpec, type FieldType, type Scalar } from './specs/go-layout.js';

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
