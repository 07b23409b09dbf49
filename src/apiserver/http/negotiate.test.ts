import { describe, expect, it } from 'vitest';
import {
  acceptedPatchTypes,
  bodyFormatOf,
  negotiateDiscovery,
  negotiateObject,
  parseAccept,
  patchTypeOf,
} from './negotiate.js';

const kubectl132Discovery =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const kubectl128Discovery =
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const tableAccept =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('negotiateDiscovery', () => {
  it.each<[string | undefined, string | undefined]>([
    [kubectl132Discovery, 'v2'],
    [kubectl128Discovery, 'v2beta1'],
    ['application/json', 'legacy'],
    [undefined, 'legacy'],
    ['*/*', 'legacy'],
    ['application/json, */*;q=0.8', 'legacy'],
    [
      'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json',
      'legacy',
    ],
    ['application/vnd.kubernetes.protobuf,application/json', 'legacy'],
    ['application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', 'v2'],
    ['application/vnd.kubernetes.protobuf', undefined],
    ['application/json;as=Table;v=v1;g=meta.k8s.io', undefined],
  ])('%s → %s', (accept, format) => {
    expect(negotiateDiscovery(parseAccept(accept))).toBe(format);
  });
});

describe('negotiateObject', () => {
  it.each<[string | undefined, unknown]>([
    [tableAccept, { kind: 'table', apiVersion: 'meta.k8s.io/v1' }],
    [
      'application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      { kind: 'table', apiVersion: 'meta.k8s.io/v1beta1' },
    ],
    ['application/json;as=Table;v=v2;g=meta.k8s.io,application/json', { kind: 'json' }],
    ['application/json', { kind: 'json' }],
    ['application/json; charset=utf-8', { kind: 'json' }],
    ['application/vnd.kubernetes.protobuf,application/json', { kind: 'json' }],
    ['application/json, */*;q=0.8', { kind: 'json' }],
    [undefined, { kind: 'json' }],
    [
      'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
      { kind: 'partial', apiVersion: 'meta.k8s.io/v1' },
    ],
    ['application/vnd.kubernetes.protobuf', undefined],
    ['text/html', undefined],
  ])('%s → %j', (accept, format) => {
    expect(negotiateObject(parseAccept(accept))).toEqual(format);
  });
});

describe('patchTypeOf', () => {
  it.each<[string | null, boolean, string | undefined]>([
    ['application/merge-patch+json', false, 'merge'],
    ['application/merge-patch+json; charset=utf-8', false, 'merge'],
    ['application/json-patch+json', false, 'json'],
    ['application/apply-patch+yaml', false, 'apply'],
    ['application/strategic-merge-patch+json', false, undefined],
    ['application/strategic-merge-patch+json', true, 'strategic'],
    ['Application/Merge-Patch+JSON', true, 'merge'],
    ['application/json', true, undefined],
    [null, true, undefined],
  ])('%s (built-in %s) → %s', (ct, builtIn, type) => {
    expect(patchTypeOf(ct, builtIn)).toBe(type);
  });

  it('lists the accepted types in upstream order', () => {
    expect(acceptedPatchTypes(false).join(', ')).toBe(
      'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    expect(acceptedPatchTypes(true)).toHaveLength(4);
  });
});

describe('bodyFormatOf', () => {
  it.each<[string | null, string | undefined]>([
    [null, 'json'],
    ['application/json', 'json'],
    ['application/json;charset=utf-8', 'json'],
    ['application/yaml', 'yaml'],
    ['application/vnd.kubernetes.protobuf', 'protobuf'],
    ['text/plain', undefined],
  ])('%s → %s', (ct, format) => {
    expect(bodyFormatOf(ct)).toBe(format);
  });
});
