/**
 * The Kubernetes protobuf envelope (`k8s\0` magic, then a runtime.Unknown holding the TypeMeta and
 * the raw message) and the wire reading the kinds' codecs build on: a message's fields, strings,
 * times, and the ObjectMeta fields a client sets (name, generateName, namespace, labels,
 * annotations, finalizers; on an update also uid and resourceVersion). The codecs of built-in kinds
 * sit in their descriptors (kinds/core-namespace.ts, kinds/certificates-certificate-signing-request.ts);
 * the reviews and TokenRequest kubectl 1.32 and later send are decoded here. Everything else in a
 * message is skipped.
 */
import { err, ok, type Result } from '../../lib/result.js';

const Magic = [0x6b, 0x38, 0x73, 0x00];

export interface ProtobufError {
  readonly kind: 'ProtobufDecodeError';
  readonly reason: string;
}

export function describeProtobufError(e: ProtobufError): string {
  return `unable to decode protobuf body: ${e.reason}`;
}

/** The envelope's type and the encoded object. */
export interface ProtobufUnknown {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
}

export interface ProtobufField {
  readonly number: number;
  readonly wireType: number;
  /** Varint value (wire type 0) or the bytes (wire type 2); fixed-width fields are skipped. */
  readonly varint?: bigint;
  readonly bytes?: Uint8Array;
}

class DecodeError extends Error {}

function readVarint(buf: Uint8Array, start: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (let pos = start; pos < buf.length && shift < 70n; pos++) {
    const byte = buf[pos] ?? 0;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, pos + 1];
    shift += 7n;
  }
  throw new DecodeError('truncated varint');
}

/** The fields of one message, in order. */
export function protobufFields(buf: Uint8Array): ProtobufField[] {
  const out: ProtobufField[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [key, afterKey] = readVarint(buf, pos);
    const number = Number(key >> 3n);
    const wireType = Number(key & 7n);
    pos = afterKey;
    if (wireType === 0) {
      const [varint, next] = readVarint(buf, pos);
      out.push({ number, wireType, varint });
      pos = next;
    } else if (wireType === 2) {
      const [length, next] = readVarint(buf, pos);
      const end = next + Number(length);
      if (end > buf.length) throw new DecodeError(`field ${number} overruns the message`);
      out.push({ number, wireType, bytes: buf.subarray(next, end) });
      pos = end;
    } else if (wireType === 1 || wireType === 5) {
      pos += wireType === 1 ? 8 : 4;
      if (pos > buf.length) throw new DecodeError(`field ${number} overruns the message`);
    } else {
      throw new DecodeError(`unsupported wire type ${wireType}`);
    }
  }
  return out;
}

const utf8 = new TextDecoder('utf-8');
export const protobufText = (f: ProtobufField): string =>
  f.bytes === undefined ? '' : utf8.decode(f.bytes);

function stringMap(entries: readonly ProtobufField[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of entries) {
    if (entry.bytes === undefined) continue;
    const kv = protobufFields(entry.bytes);
    const key = kv.find((f) => f.number === 1);
    const value = kv.find((f) => f.number === 2);
    map[key === undefined ? '' : protobufText(key)] =
      value === undefined ? '' : protobufText(value);
  }
  return map;
}

/** True when the body starts with the `k8s\0` protobuf magic. */
export function hasProtobufMagic(body: Uint8Array): boolean {
  return Magic.every((b, i) => body[i] === b);
}

/** Unwraps `k8s\0` + runtime.Unknown. */
export function decodeUnknown(body: Uint8Array): Result<ProtobufUnknown, ProtobufError> {
  if (!hasProtobufMagic(body))
    return err({ kind: 'ProtobufDecodeError', reason: 'missing the k8s\\0 prefix' });
  try {
    const top = protobufFields(body.subarray(Magic.length));
    const typeMeta = top.find((f) => f.number === 1);
    const meta = typeMeta?.bytes === undefined ? [] : protobufFields(typeMeta.bytes);
    const apiVersion = meta.find((f) => f.number === 1);
    const kind = meta.find((f) => f.number === 2);
    return ok({
      apiVersion: apiVersion === undefined ? '' : protobufText(apiVersion),
      kind: kind === undefined ? '' : protobufText(kind),
      raw: top.find((f) => f.number === 2)?.bytes ?? new Uint8Array(),
    });
  } catch (e) {
    return err({ kind: 'ProtobufDecodeError', reason: (e as Error).message });
  }
}

const CreateMeta: Readonly<Record<number, string>> = {
  1: 'name',
  2: 'generateName',
  3: 'namespace',
};
/** An update's precondition and identity too. */
export const UpdateMeta: Readonly<Record<number, string>> = {
  ...CreateMeta,
  5: 'uid',
  6: 'resourceVersion',
};

/** The client-settable part of a protobuf ObjectMeta as JSON. */
export function objectMeta(buf: Uint8Array, scalar = CreateMeta): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const all = protobufFields(buf);
  for (const f of all) {
    const key = scalar[f.number];
    if (key !== undefined && protobufText(f) !== '') meta[key] = protobufText(f);
  }
  const labels = all.filter((f) => f.number === 11);
  const annotations = all.filter((f) => f.number === 12);
  const finalizers = all.filter((f) => f.number === 14).map(protobufText);
  if (labels.length > 0) meta['labels'] = stringMap(labels);
  if (annotations.length > 0) meta['annotations'] = stringMap(annotations);
  if (finalizers.length > 0) meta['finalizers'] = finalizers;
  return meta;
}

export const protobufBase64 = (f: ProtobufField): string =>
  Buffer.from(f.bytes ?? new Uint8Array()).toString('base64');

/**
 * metav1.Time (seconds, nanos) as RFC 3339 with second precision; undefined for the zero time
 * (Go's, or an unset one), which JSON would carry as null.
 */
export function protobufTime(f: ProtobufField): string | undefined {
  const raw = protobufFields(f.bytes ?? new Uint8Array()).find((x) => x.number === 1)?.varint ?? 0n;
  const seconds = BigInt.asIntN(64, raw);
  if (seconds <= 0n) return undefined;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A message's string fields by number, as JSON keys (empty strings left out). */
function stringFields(
  buf: Uint8Array,
  names: Readonly<Record<number, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of protobufFields(buf)) {
    const key = names[f.number];
    if (key !== undefined && f.bytes !== undefined && protobufText(f) !== '')
      out[key] = protobufText(f);
  }
  return out;
}

/** The spec of a review or TokenRequest (k8s.io/api authorization/v1, authentication/v1 generated.proto). */
function reviewSpec(kind: string, buf: Uint8Array): Record<string, unknown> {
  const top = protobufFields(buf);
  const part = (n: number): Uint8Array | undefined => top.find((f) => f.number === n)?.bytes;
  switch (kind) {
    case 'SelfSubjectAccessReview': {
      const resource = part(1);
      const nonResource = part(2);
      return {
        ...(resource === undefined
          ? {}
          : {
              resourceAttributes: stringFields(resource, {
                1: 'namespace',
                2: 'verb',
                3: 'group',
                4: 'version',
                5: 'resource',
                6: 'subresource',
                7: 'name',
              }),
            }),
        ...(nonResource === undefined
          ? {}
          : { nonResourceAttributes: stringFields(nonResource, { 1: 'path', 2: 'verb' }) }),
      };
    }
    case 'SelfSubjectRulesReview':
      return stringFields(buf, { 1: 'namespace' });
    case 'TokenRequest': {
      const audiences = top.filter((f) => f.number === 1).map(protobufText);
      const expiration = top.find((f) => f.number === 4)?.varint;
      const bound = part(3);
      return {
        ...(audiences.length === 0 ? {} : { audiences }),
        ...(expiration === undefined ? {} : { expirationSeconds: Number(expiration) }),
        ...(bound === undefined
          ? {}
          : {
              boundObjectRef: stringFields(bound, {
                1: 'kind',
                2: 'apiVersion',
                3: 'name',
                4: 'uid',
              }),
            }),
      };
    }
    default:
      return {};
  }
}

/**
 * SelfSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview and TokenRequest as kubectl
 * 1.32 and later send them (protobuf): the metadata a client sets and the spec.
 */
export function decodeReview(
  expectedKind: string,
  body: Uint8Array,
): Result<Record<string, unknown>, ProtobufError> {
  const unknown = decodeUnknown(body);
  if (!unknown.ok) return unknown;
  const { apiVersion, kind, raw } = unknown.value;
  if (kind !== expectedKind)
    return err({ kind: 'ProtobufDecodeError', reason: `unexpected kind ${JSON.stringify(kind)}` });
  try {
    const top = protobufFields(raw);
    const metadata = top.find((f) => f.number === 1)?.bytes;
    // SelfSubjectReview has no spec (field 2 is its status)
    const spec = kind === 'SelfSubjectReview' ? undefined : top.find((f) => f.number === 2)?.bytes;
    return ok({
      apiVersion,
      kind,
      metadata: metadata === undefined ? {} : objectMeta(metadata),
      ...(spec === undefined ? {} : { spec: reviewSpec(kind, spec) }),
    });
  } catch (e) {
    return err({ kind: 'ProtobufDecodeError', reason: (e as Error).message });
  }
}
