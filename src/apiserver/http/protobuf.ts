/**
 * The Kubernetes protobuf envelope, read far enough for what kubectl sends this server as protobuf:
 * the Namespace of `kubectl create namespace X` (`k8s\0` magic, then a runtime.Unknown holding the
 * TypeMeta and the raw Namespace message). From the Namespace it keeps the ObjectMeta fields a
 * client sets (name, generateName, namespace, labels, annotations, finalizers) and
 * `spec.finalizers`; everything else in the message is skipped.
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

interface Field {
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
function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
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
const text = (f: Field): string => (f.bytes === undefined ? '' : utf8.decode(f.bytes));

function stringMap(entries: readonly Field[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of entries) {
    if (entry.bytes === undefined) continue;
    const kv = fields(entry.bytes);
    const key = kv.find((f) => f.number === 1);
    const value = kv.find((f) => f.number === 2);
    map[key === undefined ? '' : text(key)] = value === undefined ? '' : text(value);
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
    const top = fields(body.subarray(Magic.length));
    const typeMeta = top.find((f) => f.number === 1);
    const meta = typeMeta?.bytes === undefined ? [] : fields(typeMeta.bytes);
    const apiVersion = meta.find((f) => f.number === 1);
    const kind = meta.find((f) => f.number === 2);
    return ok({
      apiVersion: apiVersion === undefined ? '' : text(apiVersion),
      kind: kind === undefined ? '' : text(kind),
      raw: top.find((f) => f.number === 2)?.bytes ?? new Uint8Array(),
    });
  } catch (e) {
    return err({ kind: 'ProtobufDecodeError', reason: (e as Error).message });
  }
}

/** The client-settable part of a protobuf ObjectMeta as JSON. */
function objectMeta(buf: Uint8Array): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const all = fields(buf);
  const scalar: Readonly<Record<number, string>> = { 1: 'name', 2: 'generateName', 3: 'namespace' };
  for (const f of all) {
    const key = scalar[f.number];
    if (key !== undefined && text(f) !== '') meta[key] = text(f);
  }
  const labels = all.filter((f) => f.number === 11);
  const annotations = all.filter((f) => f.number === 12);
  const finalizers = all.filter((f) => f.number === 14).map(text);
  if (labels.length > 0) meta['labels'] = stringMap(labels);
  if (annotations.length > 0) meta['annotations'] = stringMap(annotations);
  if (finalizers.length > 0) meta['finalizers'] = finalizers;
  return meta;
}

/** A protobuf Namespace body as the JSON object the store accepts. */
export function decodeNamespace(body: Uint8Array): Result<Record<string, unknown>, ProtobufError> {
  const unknown = decodeUnknown(body);
  if (!unknown.ok) return unknown;
  const { apiVersion, kind, raw } = unknown.value;
  if (kind !== 'Namespace')
    return err({ kind: 'ProtobufDecodeError', reason: `unexpected kind ${JSON.stringify(kind)}` });
  try {
    const top = fields(raw);
    const metadata = top.find((f) => f.number === 1);
    const spec = top.find((f) => f.number === 2);
    const object: Record<string, unknown> = {
      apiVersion: apiVersion === '' ? 'v1' : apiVersion,
      kind,
      metadata: metadata?.bytes === undefined ? {} : objectMeta(metadata.bytes),
    };
    const finalizers =
      spec?.bytes === undefined
        ? []
        : fields(spec.bytes)
            .filter((f) => f.number === 1)
            .map(text);
    object['spec'] = finalizers.length > 0 ? { finalizers } : {};
    return ok(object);
  } catch (e) {
    return err({ kind: 'ProtobufDecodeError', reason: (e as Error).message });
  }
}
