import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../api/schema.js';
import { servedResourceTypes } from '../resource-types.js';
import {
  negotiateOpenApiV2,
  OpenApiV2Handler,
  OpenApiV2ProtobufType,
} from './openapi-v2-handler.js';
import { decodeOpenApiV2, encodeOpenApiV2 } from './openapi-v2-protobuf.js';
import { openApiV2Document, toV2Schema } from './openapi-v2.js';

const types = servedResourceTypes();
const MCO = 'machineconfiguration.openshift.io';
const doc = openApiV2Document(types, 'v1.32.5') as unknown as {
  swagger: string;
  paths: Record<string, Record<string, JsonObject>>;
  definitions: Record<string, JsonObject>;
};

type Found = Record<string, unknown>;
const at = (value: unknown, ...path: string[]): Found =>
  path.reduce<unknown>((v, k) => (v as Found | undefined)?.[k], value) as Found;

describe('the v2 document', () => {
  it('is Swagger 2.0 with every kind defined under its upstream name', () => {
    expect(doc.swagger).toBe('2.0');
    for (const name of [
      `io.openshift.machineconfiguration.v1.MachineConfig`,
      `io.openshift.machineconfiguration.v1.MachineConfigPoolList`,
      'io.k8s.api.core.v1.Node',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    ])
      expect(doc.definitions[name], name).toBeDefined();
  });

  it('has a PATCH per kind with its single GVK, fieldValidation inline and the patch types as consumes', () => {
    const patch = doc.paths[`/apis/${MCO}/v1/machineconfigs/{name}`]?.['patch'];
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({
      group: MCO,
      version: 'v1',
      kind: 'MachineConfig',
    });
    expect(patch?.['parameters']).toContainEqual(
      expect.objectContaining({ name: 'fieldValidation', in: 'query', type: 'string' }),
    );
    expect(patch?.['consumes']).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
    ]);
    expect(doc.paths['/api/v1/nodes/{name}']?.['patch']?.['consumes']).toContain(
      'application/strategic-merge-patch+json',
    );
  });

  it('refers to ObjectMeta with $ref and carries GVK lists on definitions', () => {
    const mc = doc.definitions['io.openshift.machineconfiguration.v1.MachineConfig'];
    expect(at(mc, 'properties', 'metadata', '$ref')).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    expect(mc?.['x-kubernetes-group-version-kind']).toEqual([
      { group: MCO, version: 'v1', kind: 'MachineConfig' },
    ]);
    // spec.config preserves unknown fields: an untyped node with only its description
    expect(Object.keys(at(mc, 'properties', 'spec', 'properties', 'config')).sort()).toEqual([
      'description',
      'x-kubernetes-preserve-unknown-fields',
    ]);
  });

  it('never leaves what kube-openapi cannot parse: anyOf, type lists, arrays without items', () => {
    const walk = (s: unknown, path: string): void => {
      if (typeof s !== 'object' || s === null) return;
      const o = s as Found;
      expect(o['anyOf'], path).toBeUndefined();
      expect(o['allOf'], path).toBeUndefined();
      if (o['type'] === 'array') expect(o['items'], path).toBeDefined();
      if (o['type'] !== undefined) expect(typeof o['type'], path).toBe('string');
      for (const [k, v] of Object.entries((o['properties'] as Found | undefined) ?? {}))
        walk(v, `${path}.${k}`);
      walk(o['items'], `${path}[]`);
      if (typeof o['additionalProperties'] === 'object')
        walk(o['additionalProperties'], `${path}{}`);
    };
    for (const [name, d] of Object.entries(doc.definitions)) walk(d, name);
  });
});

describe('toV2Schema', () => {
  it('drops nullable types and their required entries, and preserve-unknown properties', () => {
    expect(
      toV2Schema({
        type: 'object',
        required: ['a', 'b'],
        properties: {
          a: { type: 'array', items: { type: 'string' }, nullable: true },
          b: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { c: { type: 'string' } },
          },
          d: {
            anyOf: [{ type: 'integer' }, { type: 'string' }],
            'x-kubernetes-int-or-string': true,
          },
        },
      }),
    ).toEqual({
      type: 'object',
      required: ['b'],
      properties: {
        a: {},
        b: { 'x-kubernetes-preserve-unknown-fields': true },
        d: { 'x-kubernetes-int-or-string': true },
      },
    });
  });
});

describe('protobuf', () => {
  it('round-trips through gnostic messages: paths, GVK extension as YAML, definitions', () => {
    const decoded = decodeOpenApiV2(encodeOpenApiV2(doc)) as unknown as {
      swagger: string;
      paths: { path: { name: string; value: Found }[] };
      definitions: { additional_properties: { name: string; value: Found }[] };
    };
    expect(decoded.swagger).toBe('2.0');
    const item = decoded.paths.path.find((p) => p.name === `/apis/${MCO}/v1/machineconfigs/{name}`);
    const patch = item?.value['patch'] as {
      vendor_extension: { name: string; value: { yaml: string } }[];
      parameters: Found[];
    };
    const gvk = patch.vendor_extension.find((e) => e.name === 'x-kubernetes-group-version-kind');
    expect(gvk?.value.yaml).toBe(`group: ${MCO}\nversion: v1\nkind: MachineConfig\n`);
    expect(patch.parameters).toContainEqual({
      parameter: {
        non_body_parameter: {
          query_parameter_sub_schema: expect.objectContaining({
            name: 'fieldValidation',
            in: 'query',
            type: 'string',
          }) as unknown,
        },
      },
    });
    const names = decoded.definitions.additional_properties.map((d) => d.name);
    expect(names).toEqual([...names].sort());
    const mc = decoded.definitions.additional_properties.find(
      (d) => d.name === 'io.openshift.machineconfiguration.v1.MachineConfig',
    );
    expect(at(mc?.value, 'type')).toEqual({ value: ['object'] });
  });
});

describe('the handler', () => {
  const handler = new OpenApiV2Handler(types, 'v1.32.5', Date.parse('2026-01-02T03:04:05Z'));
  const get = (headers: Record<string, string>): Response =>
    handler.serve(new Request('https://h/openapi/v2', { headers }));

  it.each([
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf,application/json', 'protobuf'],
    ['text/html', undefined],
  ])('negotiates %s as %s', (accept, expected) => {
    expect(negotiateOpenApiV2(accept ?? null)).toBe(expected);
  });

  it('answers protobuf with the dotted Content-Type, the ETag of the JSON, Vary and Last-Modified', async () => {
    const res = get({ Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe(OpenApiV2ProtobufType);
    expect(res.headers.get('Vary')).toBe('Accept');
    expect(res.headers.get('Last-Modified')).toBe('Fri, 02 Jan 2026 03:04:05 GMT');
    expect(res.headers.get('Etag')).toBe(handler.document.etag);
    expect(handler.document.etag).toMatch(/^"[0-9A-F]{128}"$/);
    const body = new Uint8Array(await res.arrayBuffer());
    expect(decodeOpenApiV2(body)['swagger']).toBe('2.0');
  });

  it('revalidates: 304 for the ETag or an If-Modified-Since not before the build', () => {
    expect(get({ 'If-None-Match': handler.document.etag }).status).toBe(304);
    expect(get({ 'If-None-Match': '"other"' }).status).toBe(200);
    expect(get({ 'If-Modified-Since': 'Fri, 02 Jan 2026 03:04:05 GMT' }).status).toBe(304);
    expect(get({ 'If-Modified-Since': 'Fri, 02 Jan 2026 03:04:04 GMT' }).status).toBe(200);
  });

  it('gzips when asked, 406 with an empty body for nothing it serves', async () => {
    const res = get({ 'Accept-Encoding': 'gzip', Accept: 'application/json' });
    expect(res.headers.get('Content-Encoding')).toBe('gzip');
    const json = JSON.parse(
      gunzipSync(new Uint8Array(await res.arrayBuffer())).toString(),
    ) as Found;
    expect(json['swagger']).toBe('2.0');
    const refused = get({ Accept: 'text/html' });
    expect(refused.status).toBe(406);
    expect(await refused.text()).toBe('');
  });
});
