/**
 * The API server's size and shape limits, in one place. Those kube-apiserver has are its values;
 * where this server is stricter, the comment says why.
 *
 * Order, as upstream: a body over `MaxRequestBodyBytes` is refused before it is decoded (413); a
 * body nested deeper than `MaxNestingDepth` is refused while it is decoded (400); ConfigMap, Secret
 * and annotation sizes are validation (422); `MaxStoredObjectBytes` is checked last, on the bytes
 * that would be stored, whatever the storage backend (413).
 */
import { StatusError } from '../api/meta/v1/status-error.js';
import { measureJson } from '../lib/json-extent.js';
import { MaxStoredValueBytes } from '../ports/storage.js';

/** A create/update/patch/delete body (kube-apiserver's `MaxRequestBodyBytes`, 3 MiB). */
export const MaxRequestBodyBytes = 3 * 1024 * 1024;

/**
 * One stored object's JSON. Kubernetes leaves this to etcd (`--max-request-bytes`, 1.5 MiB by
 * default) and passes etcd's refusal on as a 500; here the store refuses it with a 413 that names
 * the limit, before storage is asked, so it is the same on every backend (the Storage contract has
 * each one accept a value this large).
 */
export const MaxStoredObjectBytes = MaxStoredValueBytes;

/**
 * How deep a body (JSON or YAML) or an object may nest, objects and arrays alike; the top-level
 * object is level 1. kube-apiserver allows 10,000 levels (docs/reference/security.md §3.1), but
 * V8's stack does not carry this server that far: JSON.stringify overflows at about 4,100 levels,
 * structuredClone at about 3,200, a recursive copy at about 2,000 and the `yaml` composer at about
 * 800, and the store walks objects recursively in many more places. 500 keeps every step inside
 * the stack and is far beyond any real object; docs/adr/0009-nesting-depth-limit.md says why.
 */
export const MaxNestingDepth = 500;

/** ConfigMap data + binaryData, and Secret data (`core.MaxSecretSize`, 1 MiB). */
export const MaxConfigDataBytes = 1024 * 1024;

/** The sum of annotation key and value lengths (`TotalAnnotationSizeLimitB`, 256 KiB). */
export const MaxAnnotationBytes = 256 * 1024;

/** What the `copy` operations of one JSON patch may add, together (`JSONPatchMaxCopyBytes`). */
export const MaxJsonPatchCopyBytes = 3 * 1024 * 1024;

/** go-yaml's wording for its depth limit, with this server's limit. */
export const YamlTooDeepMessage = `exceeded max depth of ${String(MaxNestingDepth)}`;

/**
 * A decoded YAML body checked once more: an alias can put a deep subtree under another one, and
 * make a small body expand past `MaxRequestBodyBytes` of JSON. 400 / 413, or undefined.
 */
export function decodedYamlProblem(value: unknown): StatusError | undefined {
  const { exceeded } = measureJson(value, {
    maxDepth: MaxNestingDepth,
    maxBytes: MaxRequestBodyBytes,
  });
  if (exceeded === 'depth') {
    return StatusError.badRequest(`error converting YAML to JSON: yaml: ${YamlTooDeepMessage}`);
  }
  if (exceeded === 'bytes') {
    return StatusError.requestEntityTooLarge(
      `the YAML body expands to more than ${String(MaxRequestBodyBytes)} bytes of JSON; limit is ${String(MaxRequestBodyBytes)}`,
    );
  }
  return undefined;
}
