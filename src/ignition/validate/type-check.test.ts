import { describe, expect, it } from 'vitest';
import { compileSchema, type CStruct } from './compiled-schema.js';
import { IGNORE_DUPLICATES, MERGED_KEYS, RULES_V3 } from './rules-v3.js';
import { IgnitionSpecs } from '../specs/ignition-specs.js';
import { checkTypes, type TypeCheck } from './type-check.js';

const root = (minor: number): CStruct =>
  compileSchema(IgnitionSpecs.schema(`3.${String(minor)}.0`), {
    rules: RULES_V3,
    ignoreDuplicates: IGNORE_DUPLICATES,
    mergedKeys: MERGED_KEYS,
  });

const mismatch = (message: string): TypeCheck => ({ kind: 'mismatch', message });
const FIELD = 'json: cannot unmarshal';

describe('checkTypes', () => {
  const v32 = root(2);
  it.each<[string, unknown, TypeCheck]>([
    ['an empty config', {}, { kind: 'exact' }],
    ['null', null, { kind: 'exact' }],
    [
      'exact keys, nulls and unknown keys',
      {
        ignition: { version: '3.2.0' },
        storage: { files: [null, { path: '/a', mode: null, Mod: 'x' }] },
        bogus: [],
      },
      { kind: 'exact' },
    ],
    ['a key in another case', { Storage: {} }, { kind: 'folded' }],
    ['a nested key in another case', { storage: { files: [{ PATH: '/a' }] } }, { kind: 'folded' }],
    [
      'the Kelvin sign folds to k',
      { passwd: { users: [{ 'sshAuthorized\u212aeys': [] }] } },
      { kind: 'folded' },
    ],
    ['the long s folds to s', { storage: { 'file\u017f': [] } }, { kind: 'folded' }],
    ['other letters do not fold', { storage: { 'fil\u00e9s': [] } }, { kind: 'exact' }],
    [
      'a mismatch before a folded key wins',
      { storage: { files: 1 }, Passwd: {} },
      mismatch(`${FIELD} number into Go struct field Storage.storage.files of type []types.File`),
    ],
    [
      'a folded key before a mismatch wins',
      { Passwd: {}, storage: { files: 1 } },
      { kind: 'folded' },
    ],
    ['a non-object config', 5, mismatch(`${FIELD} number into Go value of type types.Config`)],
    [
      'a list item',
      { storage: { files: [{ path: '/a' }, 'x'] } },
      mismatch(`${FIELD} string into Go struct field Storage.storage.files of type types.File`),
    ],
    [
      'a nested struct field',
      { storage: { files: [{ contents: { verification: { hash: 1 } } }] } },
      mismatch(
        `${FIELD} number into Go struct field Verification.storage.files.contents.verification.hash of type string`,
      ),
    ],
    [
      'a named string',
      { passwd: { users: [{ groups: [true] }] } },
      mismatch(
        `${FIELD} bool into Go struct field PasswdUser.passwd.users.groups of type types.Group`,
      ),
    ],
    [
      'an int out of range',
      { storage: { files: [{ mode: 2 ** 63 }] } },
      mismatch(
        `${FIELD} number 9223372036854776000 into Go struct field File.storage.files.mode of type int`,
      ),
    ],
    ['the smallest int64', { storage: { files: [{ mode: -(2 ** 63) }] } }, { kind: 'exact' }],
    [
      'an array for a struct',
      { storage: [] },
      mismatch(`${FIELD} array into Go struct field Config.storage of type types.Storage`),
    ],
    [
      'an object for a string',
      { storage: { files: [{ path: {} }] } },
      mismatch(`${FIELD} object into Go struct field File.storage.files.path of type string`),
    ],
  ])('%s', (_name, raw, expected) => {
    expect(checkTypes(v32, raw)).toEqual(expected);
  });

  it('follows the version: kernelArguments is a 3.3 field', () => {
    const raw = { kernelArguments: { shouldExist: [1] } };
    expect(checkTypes(v32, raw)).toEqual({ kind: 'exact' });
    expect(checkTypes(root(3), raw)).toEqual(
      mismatch(
        `${FIELD} number into Go struct field KernelArguments.kernelArguments.shouldExist of type types.KernelArgument`,
      ),
    );
  });
});
