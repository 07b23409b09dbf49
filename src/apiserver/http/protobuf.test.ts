import { describe, expect, it } from 'vitest';
import { decodeCertificateSigningRequest } from '../kinds/certificates-certificate-signing-request.js';
import { decodeNamespace } from '../kinds/core-namespace.js';
import { decodeUnknown, describeProtobufError, hasProtobufMagic } from './protobuf.js';

/** A minimal protobuf writer for the test vectors. */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}
const bytesField = (n: number, payload: number[]): number[] => [
  ...varint((n << 3) | 2),
  ...varint(payload.length),
  ...payload,
];
const str = (n: number, s: string): number[] => bytesField(n, [...new TextEncoder().encode(s)]);
const entry = (n: number, k: string, v: string): number[] =>
  bytesField(n, [...str(1, k), ...str(2, v)]);
const envelope = (apiVersion: string, kind: string, raw: number[]): Uint8Array =>
  new Uint8Array([
    0x6b,
    0x38,
    0x73,
    0x00,
    ...bytesField(1, [...str(1, apiVersion), ...str(2, kind)]),
    ...bytesField(2, raw),
    ...str(3, ''),
    ...str(4, ''),
  ]);

describe('decodeNamespace', () => {
  it('reads what kubectl create namespace sends', () => {
    // ObjectMeta{name: "team-a"} + empty spec + empty status, as kubectl encodes it
    const raw = [...bytesField(1, str(1, 'team-a')), ...bytesField(2, []), ...bytesField(3, [])];
    const decoded = decodeNamespace(envelope('v1', 'Namespace', raw));
    expect(decoded).toEqual({
      ok: true,
      value: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' }, spec: {} },
    });
  });

  it('keeps labels, annotations, finalizers and skips the other fields', () => {
    const meta = [
      ...str(1, 'ns1'),
      ...str(5, 'uid-ignored'),
      ...varint((7 << 3) | 0),
      ...varint(300),
      ...entry(11, 'team', 'a'),
      ...entry(11, 'tier', 'b'),
      ...entry(12, 'note', 'x'),
      ...str(14, 'example.com/f'),
    ];
    const raw = [...bytesField(1, meta), ...bytesField(2, str(1, 'kubernetes'))];
    const decoded = decodeNamespace(envelope('v1', 'Namespace', raw));
    expect(decoded.ok && decoded.value).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'ns1',
        labels: { team: 'a', tier: 'b' },
        annotations: { note: 'x' },
        finalizers: ['example.com/f'],
      },
      spec: { finalizers: ['kubernetes'] },
    });
  });

  it.each<[string, Uint8Array, string]>([
    [
      'no magic',
      new TextEncoder().encode('{"kind":"Namespace"}'),
      'unable to decode protobuf body: missing the k8s\\0 prefix',
    ],
    [
      'another kind',
      envelope('v1', 'Pod', []),
      'unable to decode protobuf body: unexpected kind "Pod"',
    ],
    [
      'a truncated message',
      new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x20, 0x01]),
      'unable to decode protobuf body: field 1 overruns the message',
    ],
  ])('rejects %s', (_, body, message) => {
    const decoded = decodeNamespace(body);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(describeProtobufError(decoded.error)).toBe(message);
  });
});

describe('decodeUnknown', () => {
  it('exposes the type meta and raw bytes', () => {
    const d = decodeUnknown(envelope('v1', 'DeleteOptions', [1, 2, 3]));
    expect(d.ok && { ...d.value, raw: [...d.value.raw] }).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      raw: [1, 2, 3],
    });
    expect(hasProtobufMagic(new Uint8Array([0x6b, 0x38, 0x73]))).toBe(false);
  });
});

describe('decodeCertificateSigningRequest', () => {
  it('reads what kubectl certificate approve sends: meta, spec, conditions (a zero time dropped)', () => {
    const time = (seconds: number) => [...varint((1 << 3) | 0), ...varint(seconds)];
    // Go's zero time: seconds = -62135596800, a ten-byte varint
    const zero = [0x08, 0x80, 0xf2, 0x8b, 0xa8, 0x8c, 0xfe, 0xff, 0xff, 0xff, 0x01];
    const condition = [
      ...str(1, 'Approved'),
      ...str(6, 'True'),
      ...str(2, 'KubectlApprove'),
      ...str(3, 'ok'),
      ...bytesField(4, time(1_700_000_000)),
      ...bytesField(5, zero),
    ];
    const raw = [
      ...bytesField(1, [...str(1, 'node-csr-Ab_c'), ...str(5, 'u-1'), ...str(6, '42')]),
      ...bytesField(2, [
        ...bytesField(1, [...new TextEncoder().encode('PEM')]),
        ...str(2, 'system:bootstrap'),
        ...str(4, 'system:bootstrappers'),
        ...str(5, 'client auth'),
        ...str(7, 'kubernetes.io/kube-apiserver-client-kubelet'),
        ...varint((8 << 3) | 0),
        ...varint(3600),
      ]),
      ...bytesField(3, bytesField(1, condition)),
    ];
    const decoded = decodeCertificateSigningRequest(
      envelope('certificates.k8s.io/v1', 'CertificateSigningRequest', raw),
    );
    expect(decoded.ok && decoded.value).toEqual({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'node-csr-Ab_c', uid: 'u-1', resourceVersion: '42' },
      spec: {
        request: Buffer.from('PEM').toString('base64'),
        username: 'system:bootstrap',
        groups: ['system:bootstrappers'],
        usages: ['client auth'],
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        expirationSeconds: 3600,
      },
      status: {
        conditions: [
          {
            type: 'Approved',
            status: 'True',
            reason: 'KubectlApprove',
            message: 'ok',
            lastUpdateTime: '2023-11-14T22:13:20Z',
          },
        ],
      },
    });
  });
});
