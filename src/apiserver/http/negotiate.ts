/**
 * Content negotiation: which representation an `Accept` list asks for (legacy or aggregated
 * discovery v2/v2beta1, plain JSON, a meta.k8s.io Table, PartialObjectMetadata), and what a request
 * body's `Content-Type` is (JSON, YAML, protobuf, or one of the four patch types). Entries are tried
 * in the client's order; parameters after `;` other than the profile ones are ignored.
 */
import type { PatchType } from '../resource-store.js';

export interface MediaRange {
  /** `application/json`, `*\/*`, …, lower-cased. */
  readonly mediaType: string;
  readonly params: Readonly<Record<string, string>>;
}

/** The entries of an Accept header in order, dropping those with `q=0`. */
export function parseAccept(header: string | null | undefined): MediaRange[] {
  if (header === null || header === undefined || header.trim() === '') return [];
  return header
    .split(',')
    .map(parseMediaType)
    .filter((r) => r.mediaType !== '' && r.params['q'] !== '0');
}

/** `application/json; charset=utf-8` → `{mediaType: 'application/json', params: {charset: 'utf-8'}}`. */
function parseMediaType(text: string): MediaRange {
  const [type = '', ...rest] = text.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { mediaType: type.trim().toLowerCase(), params };
}

const acceptsJson = (r: MediaRange): boolean =>
  r.mediaType === 'application/json' || r.mediaType === 'application/*' || r.mediaType === '*/*';

const profileFree = (r: MediaRange): boolean =>
  r.params['as'] === undefined && r.params['g'] === undefined && r.params['v'] === undefined;

export const DiscoveryFormat = { Legacy: 'legacy', V2: 'v2', V2beta1: 'v2beta1' } as const;
export type DiscoveryFormat = (typeof DiscoveryFormat)[keyof typeof DiscoveryFormat];

/** The exact Content-Type of an aggregated discovery answer (kubectl ignores anything else). */
export function aggregatedDiscoveryContentType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/** `/api` and `/apis`: the first supported entry wins; undefined when none is supported (406). */
export function negotiateDiscovery(accept: readonly MediaRange[]): DiscoveryFormat | undefined {
  if (accept.length === 0) return DiscoveryFormat.Legacy;
  for (const r of accept) {
    if (!acceptsJson(r)) continue;
    if (profileFree(r)) return DiscoveryFormat.Legacy;
    const { g, v, as } = r.params;
    if (
      g === 'apidiscovery.k8s.io' &&
      as === 'APIGroupDiscoveryList' &&
      (v === 'v2' || v === 'v2beta1')
    ) {
      return v;
    }
  }
  return undefined;
}

/** What a watch streams objects as. */
export type ObjectFormat =
  | { readonly kind: 'json' }
  | { readonly kind: 'table'; readonly apiVersion: string }
  | { readonly kind: 'partial'; readonly apiVersion: string };

const MetaVersions = new Set(['v1', 'v1beta1']);

/** What a get, list or write answers with: an object format, or the object as YAML. */
export type ResponseFormat = ObjectFormat | { readonly kind: 'yaml' };

/** Objects and lists: plain JSON or YAML, a Table, or PartialObjectMetadata(List); undefined → 406. */
export function negotiateObject(accept: readonly MediaRange[]): ResponseFormat | undefined {
  if (accept.length === 0) return { kind: 'json' };
  for (const r of accept) {
    if (r.mediaType === 'application/yaml' && profileFree(r)) return { kind: 'yaml' };
    if (!acceptsJson(r)) continue;
    if (profileFree(r)) return { kind: 'json' };
    const { g, v, as } = r.params;
    if (g !== 'meta.k8s.io' || v === undefined || !MetaVersions.has(v)) continue;
    if (as === 'Table') return { kind: 'table', apiVersion: `meta.k8s.io/${v}` };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
      return { kind: 'partial', apiVersion: `meta.k8s.io/${v}` };
    }
  }
  return undefined;
}

/** The media types object endpoints can answer with, for the 406 message. */
export const ServedMediaTypes: readonly string[] = ['application/json', 'application/yaml'];

/** What a watch can stream (YAML has no stream framing, as upstream's serializer has none). */
export const StreamedMediaTypes: readonly string[] = ['application/json'];

export const BodyFormat = { Json: 'json', Yaml: 'yaml', Protobuf: 'protobuf' } as const;
export type BodyFormat = (typeof BodyFormat)[keyof typeof BodyFormat];

/** A create/update body's format; an absent Content-Type means JSON, as upstream assumes. */
export function bodyFormatOf(contentType: string | null | undefined): BodyFormat | undefined {
  const { mediaType } = parseMediaType(contentType ?? '');
  switch (mediaType) {
    case '':
    case 'application/json':
      return BodyFormat.Json;
    case 'application/yaml':
      return BodyFormat.Yaml;
    case 'application/vnd.kubernetes.protobuf':
      return BodyFormat.Protobuf;
    default:
      return undefined;
  }
}

const PatchMediaTypes: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** The patch media types a kind accepts, in upstream's order (strategic only for built-ins). */
export function acceptedPatchTypes(builtIn: boolean): string[] {
  return builtIn
    ? [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        'application/apply-patch+yaml',
      ]
    : [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/apply-patch+yaml',
      ];
}

/** The PatchType of a PATCH Content-Type, or undefined when the kind does not accept it (415). */
export function patchTypeOf(
  contentType: string | null | undefined,
  builtIn: boolean,
): PatchType | undefined {
  const { mediaType } = parseMediaType(contentType ?? '');
  const type = PatchMediaTypes[mediaType];
  if (type === undefined || (type === 'strategic' && !builtIn)) return undefined;
  return type;
}
