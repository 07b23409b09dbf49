/**
 * Request bodies: decoding a create/update/eviction body (JSON, YAML, or protobuf for the kinds
 * whose descriptor has a codec, and reviews) into a JSON object, with the real API server's
 * 400/415 answers, and reading DeleteOptions (JSON; a protobuf or empty body means the defaults).
 *
 * Nesting is bounded before anything recursive runs (`MaxNestingDepth`): JSON by Go's scanner, YAML
 * by its CST (yaml-depth.ts), and a YAML value once more after decoding, since an alias can put a
 * deep subtree under another (and can make a small body expand: past `MaxRequestBodyBytes` of
 * JSON it is a 413). YAML duplicate keys keep the last value, as JSON bodies do here: the `yaml`
 * library's uniqueness check compares every key with every other, minutes for 100,000 keys.
 */
import { parse as parseYaml } from 'yaml';
import { StatusError } from '../../api/meta/v1/status-error.js';
import { err, ok, type Result } from '../../lib/result.js';
import { decodedYamlProblem, MaxNestingDepth, YamlTooDeepMessage } from '../request-limits.js';
import type { DeleteOptions } from '../resource-store.js';
import { goJsonProblem, goJsonSyntaxError } from './go-json-syntax.js';
import { isRecord } from './json-access.js';
import { BodyFormat, bodyFormatOf } from './negotiate.js';
import { BuiltInKinds } from '../kinds/index.js';
import { decodeReview, describeProtobufError, hasProtobufMagic } from './protobuf.js';
import { yamlNestsDeeper } from './yaml-depth.js';

/** The Go type json.Unmarshal reports when the body is not an object (SimpleMetaFactory). */
const FindKindType =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** summarizeData: the first 30 bytes, as text for a JSON object, hex otherwise. */
function summarize(body: Uint8Array): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const more = body.length > 30 ? ' ...' : '';
  if (body[0] === 0x7b) return new TextDecoder().decode(head) + more;
  return Buffer.from(head).toString('hex') + more;
}

/** transformDecodeError for a body whose kind could not be read. */
function unrecognized(kind: string, cause: string, body: Uint8Array): StatusError {
  return StatusError.badRequest(
    `the object provided is unrecognized (must be of type ${kind}): ${cause} (${summarize(body)})`,
  );
}

function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function decodeJson(body: Uint8Array, kind: string): Result<unknown, StatusError> {
  const syntax = goJsonSyntaxError(body);
  if (syntax !== undefined) {
    return err(unrecognized(kind, `couldn't get version/kind; json parse error: ${syntax}`, body));
  }
  return ok(JSON.parse(new TextDecoder().decode(body)));
}

/** A YAML text's value, or the failure (a Status, or the message after `yaml: `). */
function parseBoundedYaml(text: string): Result<unknown, string | StatusError> {
  if (yamlNestsDeeper(text, MaxNestingDepth)) return err(YamlTooDeepMessage);
  let value: unknown;
  try {
    value = parseYaml(text, { uniqueKeys: false }) as unknown;
  } catch (e) {
    return err((e as Error).message.split('\n')[0] ?? '');
  }
  const problem = decodedYamlProblem(value);
  return problem === undefined ? ok(value) : err(problem);
}

function decodeYaml(body: Uint8Array, kind: string): Result<unknown, StatusError> {
  // JSON is YAML, and what clients mostly send as YAML: the JSON decoder is a hundred times faster
  if (goJsonProblem(body) === undefined) return ok(JSON.parse(new TextDecoder().decode(body)));
  const parsed = parseBoundedYaml(new TextDecoder().decode(body));
  if (parsed.ok) return parsed;
  if (parsed.error instanceof StatusError) return err(parsed.error);
  return err(unrecognized(kind, `error converting YAML to JSON: yaml: ${parsed.error}`, body));
}

/**
 * A patch body's nesting, checked before the store parses it (JSON for the JSON, merge and
 * strategic types; JSON or YAML for apply): 400 when it nests too deep.
 */
export function checkPatchNesting(body: Uint8Array, type: string): void {
  const json = goJsonProblem(body);
  if (json === undefined) return;
  if (json.tooDeep) throw StatusError.badRequest(json.message);
  if (type !== 'apply') return; // malformed JSON: the store words that error
  const text = new TextDecoder().decode(body);
  if (yamlNestsDeeper(text, MaxNestingDepth)) {
    throw StatusError.badRequest(`error converting YAML to JSON: yaml: ${YamlTooDeepMessage}`);
  }
}

export interface BodyTarget {
  /** The Kind the body must decode into (the resource's, or `Eviction`). */
  readonly kind: string;
  readonly builtIn: boolean;
  /**
   * Only the kinds with a protobuf codec (Namespaces, CertificateSigningRequests), reviews and
   * TokenRequests can be sent as protobuf here.
   */
  readonly acceptsProtobuf: boolean;
}

/** The built-in kinds whose descriptor has a protobuf codec. */
const ProtobufKinds = BuiltInKinds.filter((k) => k.protobuf !== undefined);

/** The kinds kubectl sends as protobuf that this server decodes. */
export function decodesProtobuf(rt: { readonly group: string; readonly kind: string }): boolean {
  return ProtobufKinds.some((k) => k.group === rt.group && k.kind === rt.kind);
}

function acceptedBodyTypes(target: BodyTarget): string[] {
  return target.acceptsProtobuf
    ? ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']
    : ['application/json', 'application/yaml'];
}

/** A create/update body as a JSON object, or the Status error the API server answers with. */
export function decodeObjectBody(
  body: Uint8Array,
  contentType: string | null,
  target: BodyTarget,
): Result<Record<string, unknown>, StatusError> {
  const format = bodyFormatOf(contentType);
  let decoded: Result<unknown, StatusError>;
  if (format === BodyFormat.Json) decoded = decodeJson(body, target.kind);
  else if (format === BodyFormat.Yaml) decoded = decodeYaml(body, target.kind);
  else if (format === BodyFormat.Protobuf && target.acceptsProtobuf) {
    const codec = ProtobufKinds.find((k) => k.kind === target.kind)?.protobuf;
    const object = codec === undefined ? decodeReview(target.kind, body) : codec(body);
    decoded = object.ok ? object : err(StatusError.badRequest(describeProtobufError(object.error)));
  } else {
    return err(StatusError.unsupportedMediaType(acceptedBodyTypes(target)));
  }
  if (!decoded.ok) return decoded;
  if (decoded.value === null) return ok({});
  if (!isRecord(decoded.value)) {
    const cause = `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(decoded.value)} into Go value of type ${FindKindType}`;
    return err(unrecognized(target.kind, cause, body));
  }
  return ok({ ...decoded.value });
}

const Propagation = new Set(['Background', 'Foreground', 'Orphan']);

/** DeleteOptions from a JSON body (and dryRun inside it); protobuf, empty or unreadable → defaults. */
export function decodeDeleteOptions(
  body: Uint8Array,
): DeleteOptions & { readonly dryRun?: boolean } {
  if (body.length === 0 || hasProtobufMagic(body) || goJsonSyntaxError(body) !== undefined)
    return {};
  const value: unknown = JSON.parse(new TextDecoder().decode(body));
  if (!isRecord(value)) return {};
  const out: {
    propagationPolicy?: NonNullable<DeleteOptions['propagationPolicy']>;
    preconditions?: { uid?: string; resourceVersion?: string };
    gracePeriodSeconds?: number;
    dryRun?: boolean;
  } = {};
  const policy = value['propagationPolicy'];
  if (typeof policy === 'string' && Propagation.has(policy)) {
    out.propagationPolicy = policy as NonNullable<DeleteOptions['propagationPolicy']>;
  }
  const grace = value['gracePeriodSeconds'];
  if (typeof grace === 'number') out.gracePeriodSeconds = grace;
  const pre = value['preconditions'];
  if (isRecord(pre)) {
    const preconditions: { uid?: string; resourceVersion?: string } = {};
    if (typeof pre['uid'] === 'string') preconditions.uid = pre['uid'];
    if (typeof pre['resourceVersion'] === 'string')
      preconditions.resourceVersion = pre['resourceVersion'];
    out.preconditions = preconditions;
  }
  const dryRun = value['dryRun'];
  if (Array.isArray(dryRun) && dryRun.includes('All')) out.dryRun = true;
  return out;
}
