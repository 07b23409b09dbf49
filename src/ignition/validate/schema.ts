/**
 * The Go types of each Ignition 3.x spec (config/v3_X/types/schema.go), as data: which JSON keys a
 * struct knows, in Go field order (embedded structs flattened, as encoding/json and vcontext see
 * them), and each field's Go type, so that decoding fails where json.Unmarshal fails, unknown keys
 * warn, and validation walks fields in upstream's order.
 */

export type GoType =
  | { readonly kind: 'string'; readonly name: string }
  | { readonly kind: 'int' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'ptr'; readonly elem: GoType }
  | { readonly kind: 'list'; readonly elem: GoType; readonly name: string }
  | { readonly kind: 'struct'; readonly struct: string };

export interface FieldDef {
  readonly json: string;
  readonly type: GoType;
}

export interface StructDef {
  readonly name: string;
  readonly fields: readonly FieldDef[];
}

export type Schema = ReadonlyMap<string, StructDef>;

/** Spec 3.x minor version, 0 to 5. */
export type Minor3 = 0 | 1 | 2 | 3 | 4 | 5;

const str: GoType = { kind: 'string', name: 'string' };
const int: GoType = { kind: 'int' };
const bool: GoType = { kind: 'bool' };
const ptr = (elem: GoType): GoType => ({ kind: 'ptr', elem });
const named = (name: string): GoType => ({ kind: 'string', name: `types.${name}` });
const struct = (name: string): GoType => ({ kind: 'struct', struct: name });
const listOf = (elem: GoType, name?: string): GoType => ({
  kind: 'list',
  elem,
  name:
    name ??
    `[]${elem.kind === 'struct' ? `types.${elem.struct}` : elem.kind === 'string' ? elem.name : 'int'}`,
});

type FieldSpec = readonly [string, GoType] | false;

function def(name: string, ...fields: readonly FieldSpec[]): StructDef {
  return {
    name,
    fields: fields
      .filter((f): f is readonly [string, GoType] => f !== false)
      .map(([json, type]) => ({ json, type })),
  };
}

const node: readonly FieldSpec[] = [
  ['group', struct('NodeGroup')],
  ['overwrite', ptr(bool)],
  ['path', str],
  ['user', struct('NodeUser')],
];

/** Builds the Go type table of spec 3.`minor`. */
export function schemaV3(minor: Minor3): Schema {
  const since = (m: number): boolean => minor >= m;
  const resource = since(1) ? 'Resource' : undefined;
  const defs: StructDef[] = [
    def(
      'Config',
      ['ignition', struct('Ignition')],
      since(3) && ['kernelArguments', struct('KernelArguments')],
      ['passwd', struct('Passwd')],
      ['storage', struct('Storage')],
      ['systemd', struct('Systemd')],
    ),
    def(
      'Ignition',
      ['config', struct('IgnitionConfig')],
      since(1) && ['proxy', struct('Proxy')],
      ['security', struct('Security')],
      ['timeouts', struct('Timeouts')],
      ['version', str],
    ),
    def(
      'IgnitionConfig',
      ['merge', listOf(struct(resource ?? 'ConfigReference'))],
      ['replace', struct(resource ?? 'ConfigReference')],
    ),
    def(
      'Proxy',
      ['httpProxy', ptr(str)],
      ['httpsProxy', ptr(str)],
      ['noProxy', listOf(named('NoProxyItem'))],
    ),
    def('Security', ['tls', struct('TLS')]),
    def('TLS', ['certificateAuthorities', listOf(struct(resource ?? 'CaReference'))]),
    def('Timeouts', ['httpResponseHeaders', ptr(int)], ['httpTotal', ptr(int)]),
    def('CaReference', ['source', str], ['verification', struct('Verification')]),
    def('ConfigReference', ['source', ptr(str)], ['verification', struct('Verification')]),
    def(
      'FileContents',
      ['compression', ptr(str)],
      ['source', ptr(str)],
      ['verification', struct('Verification')],
    ),
    def(
      'Resource',
      ['compression', ptr(str)],
      ['httpHeaders', listOf(struct('HTTPHeader'), 'types.HTTPHeaders')],
      ['source', ptr(str)],
      ['verification', struct('Verification')],
    ),
    def('HTTPHeader', ['name', str], ['value', ptr(str)]),
    def('Verification', ['hash', ptr(str)]),
    def(
      'KernelArguments',
      ['shouldExist', listOf(named('KernelArgument'))],
      ['shouldNotExist', listOf(named('KernelArgument'))],
    ),
    def(
      'Passwd',
      ['groups', listOf(struct('PasswdGroup'))],
      ['users', listOf(struct('PasswdUser'))],
    ),
    def(
      'PasswdGroup',
      ['gid', ptr(int)],
      ['name', str],
      ['passwordHash', ptr(str)],
      since(2) && ['shouldExist', ptr(bool)],
      ['system', ptr(bool)],
    ),
    def(
      'PasswdUser',
      ['gecos', ptr(str)],
      ['groups', listOf(named('Group'))],
      ['homeDir', ptr(str)],
      ['name', str],
      ['noCreateHome', ptr(bool)],
      ['noLogInit', ptr(bool)],
      ['noUserGroup', ptr(bool)],
      ['passwordHash', ptr(str)],
      ['primaryGroup', ptr(str)],
      ['sshAuthorizedKeys', listOf(named('SSHAuthorizedKey'))],
      ['shell', ptr(str)],
      since(2) && ['shouldExist', ptr(bool)],
      ['system', ptr(bool)],
      ['uid', ptr(int)],
    ),
    def(
      'Storage',
      ['directories', listOf(struct('Directory'))],
      ['disks', listOf(struct('Disk'))],
      ['files', listOf(struct('File'))],
      ['filesystems', listOf(struct('Filesystem'))],
      ['links', listOf(struct('Link'))],
      since(2) && ['luks', listOf(struct('Luks'))],
      ['raid', listOf(struct('Raid'))],
    ),
    def('Directory', ...node, ['mode', ptr(int)]),
    def(
      'File',
      ...node,
      ['append', listOf(struct(resource ?? 'FileContents'))],
      ['contents', struct(resource ?? 'FileContents')],
      ['mode', ptr(int)],
    ),
    def('Link', ...node, ['hard', ptr(bool)], ['target', since(3) ? ptr(str) : str]),
    def('NodeGroup', ['id', ptr(int)], ['name', ptr(str)]),
    def('NodeUser', ['id', ptr(int)], ['name', ptr(str)]),
    def(
      'Disk',
      ['device', str],
      ['partitions', listOf(struct('Partition'))],
      ['wipeTable', ptr(bool)],
    ),
    def(
      'Partition',
      ['guid', ptr(str)],
      ['label', ptr(str)],
      ['number', int],
      since(2) && ['resize', ptr(bool)],
      ['shouldExist', ptr(bool)],
      ['sizeMiB', ptr(int)],
      ['startMiB', ptr(int)],
      ['typeGuid', ptr(str)],
      ['wipePartitionEntry', ptr(bool)],
    ),
    def(
      'Filesystem',
      ['device', str],
      ['format', ptr(str)],
      ['label', ptr(str)],
      since(1) && ['mountOptions', listOf(named('MountOption'))],
      ['options', listOf(named('FilesystemOption'))],
      ['path', ptr(str)],
      ['uuid', ptr(str)],
      ['wipeFilesystem', ptr(bool)],
    ),
    def(
      'Raid',
      ['devices', listOf(named('Device'))],
      ['level', since(3) ? ptr(str) : str],
      ['name', str],
      ['options', listOf(named('RaidOption'))],
      ['spares', ptr(int)],
    ),
    def(
      'Luks',
      since(5) && ['cex', struct('Cex')],
      ['clevis', since(3) ? struct('Clevis') : ptr(struct('Clevis'))],
      ['device', ptr(str)],
      since(4) && ['discard', ptr(bool)],
      ['keyFile', struct('Resource')],
      ['label', ptr(str)],
      ['name', str],
      since(4) && ['openOptions', listOf(named('OpenOption'))],
      ['options', listOf(named('LuksOption'))],
      ['uuid', ptr(str)],
      ['wipeVolume', ptr(bool)],
    ),
    def('Cex', ['enabled', ptr(bool)]),
    def(
      'Clevis',
      ['custom', since(3) ? struct('ClevisCustom') : ptr(struct('Custom'))],
      ['tang', listOf(struct('Tang'))],
      ['threshold', ptr(int)],
      ['tpm2', ptr(bool)],
    ),
    def('Custom', ['config', str], ['needsNetwork', ptr(bool)], ['pin', str]),
    def('ClevisCustom', ['config', ptr(str)], ['needsNetwork', ptr(bool)], ['pin', ptr(str)]),
    def('Tang', since(4) && ['advertisement', ptr(str)], ['thumbprint', ptr(str)], ['url', str]),
    def('Systemd', ['units', listOf(struct('Unit'))]),
    def(
      'Unit',
      ['contents', ptr(str)],
      ['dropins', listOf(struct('Dropin'))],
      ['enabled', ptr(bool)],
      ['mask', ptr(bool)],
      ['name', str],
    ),
    def('Dropin', ['contents', ptr(str)], ['name', str]),
  ];
  return new Map(defs.map((d) => [d.name, d]));
}

/** Go's type name in json.Unmarshal messages, after pointers are followed. */
export function goTypeName(t: GoType): string {
  switch (t.kind) {
    case 'string':
    case 'list':
      return t.name;
    case 'int':
      return 'int';
    case 'bool':
      return 'bool';
    case 'ptr':
      return goTypeName(t.elem);
    case 'struct':
      return `types.${t.struct}`;
  }
}
