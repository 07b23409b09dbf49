import { describe, expect, it } from 'vitest';
import type { StatusError } from '../../api/meta/v1/status-error.js';
import { checkPatchNesting, decodeDeleteOptions, decodeObjectBody } from './body.js';

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

describe('decodeObjectBody: bounds', () => {
  const cm = { kind: 'ConfigMap', builtIn: true, acceptsProtobuf: false };
  const deepJson = (n: number) =>
    `{"kind":"ConfigMap","data":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;

  it('refuses JSON nested past 500 levels with 400, as Go words it', () => {
    expect(decodeObjectBody(enc(deepJson(500)), 'application/json', cm).ok).toBe(true);
    expect(failure(enc(deepJson(501)), 'application/json', cm)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'[\' exceeded max depth ({"kind":"ConfigMap","data":[[[ ...)',
    });
    expect(failure(enc(deepJson(20_000)), 'application/json', cm)).toMatchObject({ code: 400 });
  });

  it('refuses YAML nested past 500 levels with 400, before the composer runs', () => {
    const deep = (n: number) => `kind: ConfigMap\ndata: ${'['.repeat(n - 1)}${']'.repeat(n - 1)}\n`;
    expect(decodeObjectBody(enc(deep(500)), 'application/yaml', cm).ok).toBe(true);
    expect(failure(enc(deep(501)), 'application/yaml', cm)).toMatchObject({
      code: 400,
      message: expect.stringContaining(
        ': error converting YAML to JSON: yaml: exceeded max depth of 500 (',
      ) as string,
    });
    // deep enough to crash the process if it reached the composer twice
    for (let i = 0; i < 3; i++) {
      expect(failure(enc(deep(20_000)), 'application/yaml', cm)).toMatchObject({ code: 400 });
    }
    const block = `${'- '.repeat(600)}x\n`;
    expect(failure(enc(block), 'application/yaml', cm)).toMatchObject({ code: 400 });
  });

  it('refuses an alias bomb (exponential expansion) with 400', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++) {
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    }
    expect(failure(enc(lines.join('\n')), 'application/yaml', cm)).toMatchObject({
      code: 400,
      message: expect.stringContaining('Excessive alias count') as string,
    });
  });

  it('refuses aliases that expand a small body past 3 MiB of JSON with 413', () => {
    const big = 'x'.repeat(1024 * 1024);
    const text = `kind: ConfigMap\na: &a ${big}\nb: [*a, *a, *a]\n`;
    expect(failure(enc(text), 'application/yaml', cm)).toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message:
        'Request entity too large: the YAML body expands to more than 3145728 bytes of JSON; limit is 3145728',
    });
  });

  it('refuses aliases that nest a subtree past the limit, and cyclic aliases, with 400', () => {
    const level = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const text = `a: &a ${level(300)}\nb: &b ${'['.repeat(299)}*a${']'.repeat(299)}\n`;
    expect(failure(enc(text), 'application/yaml', cm)).toMatchObject({
      code: 400,
      message: 'error converting YAML to JSON: yaml: exceeded max depth of 500',
    });
    expect(failure(enc('a: &a [*a]'), 'application/yaml', cm)).toMatchObject({ code: 400 });
  });

  it('decodes JSON sent as YAML with the JSON decoder, and keeps the last of duplicate keys', () => {
    expect(
      decodeObjectBody(enc('{"kind":"ConfigMap","data":{"a":"1"}}'), 'application/yaml', cm),
    ).toEqual({
      ok: true,
      value: { kind: 'ConfigMap', data: { a: '1' } },
    });
    expect(
      decodeObjectBody(enc('kind: ConfigMap\ndata:\n  a: "1"\n  a: "2"\n'), 'application/yaml', cm),
    ).toEqual({
      ok: true,
      value: { kind: 'ConfigMap', data: { a: '2' } },
    });
  });

  it('decodes many keys in linear time (no pairwise uniqueness check)', () => {
    const text = `kind: ConfigMap\ndata:\n${Array.from({ length: 20_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`;
    const started = performance.now();
    const decoded = decodeObjectBody(enc(text), 'application/yaml', cm);
    expect(decoded.ok && Object.keys(decoded.value['data'] as object).length).toBe(20_000);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});

describe('checkPatchNesting', () => {
  const status = (body: string, type: string): unknown => {
    try {
      checkPatchNesting(enc(body), type);
      return 'ok';
    } catch (e) {
      return (e as StatusError).toStatus();
    }
  };

  it('refuses patches nested too deep, JSON and YAML alike; leaves other errors to the store', () => {
    const deep = `{"spec":${'['.repeat(600)}${']'.repeat(600)}}`;
    for (const type of ['json', 'merge', 'strategic', 'apply']) {
      expect(status(deep, type)).toMatchObject({
        code: 400,
        message: "invalid character '[' exceeded max depth",
      });
    }
    expect(status(`spec: ${'['.repeat(600)}`, 'apply')).toMatchObject({
      code: 400,
      message: 'error converting YAML to JSON: yaml: exceeded max depth of 500',
    });
    expect(status('{"spec":', 'merge')).toBe('ok');
    expect(status('spec:\n  a: 1\n', 'apply')).toBe('ok');
  });
});
