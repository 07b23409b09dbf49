import { describe, expect, it } from 'vitest';
import { decodeDeleteOptions, decodeObjectBody } from './body.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const mc = { kind: 'MachineConfig', builtIn: false, acceptsProtobuf: false };
const ns = { kind: 'Namespace', builtIn: true, acceptsProtobuf: true };

function failure(body: Uint8Array, ct: string | null, target = mc): unknown {
  const r = decodeObjectBody(body, ct, target);
  return r.ok ? r : r.error.toStatus();
}

describe('decodeObjectBody', () => {
  it('decodes JSON and YAML', () => {
    expect(
      decodeObjectBody(
        enc('{"kind":"MachineConfig","metadata":{"name":"a"}}'),
        'application/json',
        mc,
      ),
    ).toEqual({
      ok: true,
      value: { kind: 'MachineConfig', metadata: { name: 'a' } },
    });
    expect(
      decodeObjectBody(enc('kind: MachineConfig\nmetadata:\n  name: a\n'), 'application/yaml', mc),
    ).toEqual({
      ok: true,
      value: { kind: 'MachineConfig', metadata: { name: 'a' } },
    });
    expect(decodeObjectBody(enc('{}'), null, mc)).toEqual({ ok: true, value: {} });
  });

  it('answers malformed JSON as the API server does', () => {
    expect(failure(enc('{"kind":"MachineConfig",'), 'application/json')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the object provided is unrecognized (must be of type MachineConfig): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"kind":"MachineConfig",)',
      reason: 'BadRequest',
      code: 400,
    });
    expect(
      failure(enc('{"metadata": {"name": "a-very-long-name-here"}, x}'), 'application/json'),
    ).toMatchObject({
      message:
        'the object provided is unrecognized (must be of type MachineConfig): couldn\'t get version/kind; json parse error: invalid character \'x\' looking for beginning of object key string ({"metadata": {"name": "a-very- ...)',
    });
  });

  it('rejects a body that is not an object', () => {
    expect(failure(enc('[1]'), 'application/json')).toMatchObject({
      code: 400,
      message:
        'the object provided is unrecognized (must be of type MachineConfig): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)',
    });
  });

  it('answers 415 for unknown content types, listing what the kind accepts', () => {
    expect(failure(enc('x'), 'text/plain')).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    });
    expect(failure(enc('x'), 'application/vnd.kubernetes.protobuf')).toMatchObject({ code: 415 });
  });

  it('decodes a protobuf Namespace and reports a broken one', () => {
    const body = new Uint8Array([
      0x6b,
      0x38,
      0x73,
      0x00,
      0x0a,
      0x0f,
      0x0a,
      0x02,
      0x76,
      0x31,
      0x12,
      0x09,
      ...enc('Namespace'),
      0x12,
      0x07,
      0x0a,
      0x05,
      0x0a,
      0x03,
      ...enc('foo'),
    ]);
    expect(decodeObjectBody(body, 'application/vnd.kubernetes.protobuf', ns)).toEqual({
      ok: true,
      value: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' }, spec: {} },
    });
    expect(failure(enc('k8s\0\x0a\x40'), 'application/vnd.kubernetes.protobuf', ns)).toMatchObject({
      code: 400,
      message: 'unable to decode protobuf body: field 1 overruns the message',
    });
  });
});

describe('decodeDeleteOptions', () => {
  it.each<[string, unknown]>([
    ['', {}],
    ['{"propagationPolicy":"Background"}', { propagationPolicy: 'Background' }],
    [
      '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"gracePeriodSeconds":0}',
      { dryRun: true, gracePeriodSeconds: 0 },
    ],
    [
      '{"preconditions":{"uid":"u1","resourceVersion":"5"}}',
      { preconditions: { uid: 'u1', resourceVersion: '5' } },
    ],
    ['{"propagationPolicy":"Sideways"}', {}],
    ['not json', {}],
    ['k8s\0\x0a\x02', {}],
  ])('%j', (body, options) => {
    expect(decodeDeleteOptions(enc(body))).toEqual(options);
  });
});
