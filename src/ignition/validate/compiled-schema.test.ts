import { describe, expect, it } from 'vitest';
import { compileSchema, structsOf, type CStruct } from './compiled-schema.js';
import { IGNORE_DUPLICATES, MERGED_KEYS, RULES_V3 } from './rules-v3.js';
import { IgnitionSpecs } from '../specs/ignition-specs.js';

const compile = (minor: number): CStruct =>
  compileSchema(IgnitionSpecs.schema(`3.${String(minor)}.0`), {
    rules: RULES_V3,
    ignoreDuplicates: IGNORE_DUPLICATES,
    mergedKeys: MERGED_KEYS,
  });

function struct(root: CStruct, name: string): CStruct {
  const found = structsOf(root).find((d) => d.name === name);
  if (found === undefined) throw new Error(`no ${name}`);
  return found;
}

describe('compileSchema', () => {
  const v32 = compile(2);

  it('keeps Go field order and finds fields by exact and folded name', () => {
    const file = struct(v32, 'File');
    expect(file.fields.map((f) => f.json)).toEqual([
      'group',
      'overwrite',
      'path',
      'user',
      'append',
      'contents',
      'mode',
    ]);
    expect(file.exact.get('path')?.json).toBe('path');
    expect(file.exact.get('Path')).toBeUndefined();
    expect(file.folded.get('path')?.json).toBe('path');
    expect(struct(v32, 'Storage').folded.get('directories')?.json).toBe('directories');
  });

  it('walks only into structs, struct pointers and lists that hold rules', () => {
    expect(struct(v32, 'File').walk.map((f) => f.json)).toEqual([
      'group',
      'user',
      'append',
      'contents',
    ]);
    expect(struct(v32, 'Raid').walk.map((f) => f.json)).toEqual(['devices']);
    expect(struct(v32, 'PasswdUser').walk).toEqual([]);
    expect(struct(v32, 'Luks').walk.map((f) => f.json)).toEqual(['clevis', 'keyFile']);
  });

  it('resolves duplicate-key lists and their key spaces', () => {
    const storage = struct(v32, 'Storage');
    expect(storage.dups).toEqual([
      { json: 'directories', space: 0, shared: true, keyType: 'Directory' },
      { json: 'disks', space: 1, shared: false, keyType: 'Disk' },
      { json: 'files', space: 0, shared: true, keyType: 'File' },
      { json: 'filesystems', space: 2, shared: false, keyType: 'Filesystem' },
      { json: 'links', space: 0, shared: true, keyType: 'Link' },
      { json: 'luks', space: 3, shared: false, keyType: 'Luks' },
      { json: 'raid', space: 4, shared: false, keyType: 'Raid' },
    ]);
    expect(storage.spaceCount).toBe(5);
    expect(struct(v32, 'File').dups).toEqual([]);
    expect(struct(v32, 'Filesystem').dups).toEqual([]);
    expect(struct(v32, 'Raid').dups.map((d) => d.json)).toEqual(['devices']);
    expect(struct(compile(3), 'KernelArguments').dups).toEqual([
      { json: 'shouldExist', space: 0, shared: true, keyType: 'KernelArgument' },
      { json: 'shouldNotExist', space: 0, shared: true, keyType: 'KernelArgument' },
    ]);
  });

  it('names types as Go does in decode errors', () => {
    const storage = struct(v32, 'Storage');
    expect(storage.exact.get('files')?.type.goName).toBe('[]types.File');
    const resource = struct(v32, 'Resource');
    expect(resource.exact.get('httpHeaders')?.type.goName).toBe('types.HTTPHeaders');
    expect(resource.exact.get('source')?.type.goName).toBe('string');
    expect(struct(v32, 'File').exact.get('mode')?.type.goName).toBe('int');
  });

  it('attaches each type its rule, named strings included', () => {
    expect(struct(v32, 'File').rule).toBe(RULES_V3['File']);
    expect(struct(v32, 'PasswdUser').rule).toBeUndefined();
    const devices = struct(v32, 'Raid').exact.get('devices')?.type;
    expect(devices?.kind === 'list' && devices.elem.kind === 'string' && devices.elem.rule).toBe(
      RULES_V3['Device'],
    );
  });

  const common =
    'Config Directory Disk Dropin File Filesystem Ignition IgnitionConfig Link NodeGroup NodeUser Partition Passwd PasswdGroup PasswdUser Raid Security Storage Systemd TLS Timeouts Unit Verification';
  it.each<[number, string]>([
    [0, 'CaReference ConfigReference FileContents'],
    [2, 'Clevis Custom HTTPHeader Luks Proxy Resource Tang'],
    [3, 'Clevis ClevisCustom HTTPHeader KernelArguments Luks Proxy Resource Tang'],
    [5, 'Cex Clevis ClevisCustom HTTPHeader KernelArguments Luks Proxy Resource Tang'],
  ])('spec 3.%i reaches the common structs and %s', (minor, extra) => {
    const names = structsOf(compile(minor)).map((d) => d.name);
    expect(names.sort()).toEqual(`${common} ${extra}`.split(' ').sort());
  });
});
