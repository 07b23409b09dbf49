/**
 * JSON patch (RFC 6902, `application/json-patch+json`), including `test`. A body that is not a
 * list of operations is 400; an operation that cannot apply is 422 with the reason as the single
 * `UnexpectedServerResponse` cause, as the real server answers.
 */
// fast-json-patch is CommonJS whose named exports Node cannot detect; its default is module.exports
import jsonPatch, { type Operation } from 'fast-json-patch';
import { StatusError } from '../../api/meta/v1/status-error.js';
import { goJsonKind, isJsonMap, type JsonMap } from './json.js';

export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw StatusError.badRequest(
      `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type jsonpatch.Patch`,
    );
  }
  try {
    return jsonPatch.applyPatch(target, patch as Operation[], true, false).newDocument;
  } catch (e) {
    if (e instanceof jsonPatch.JsonPatchError) throw patchFailed(describe(e, patch));
    throw e;
  }
}

type Wording = (op: JsonMap) => string;

const missingPath: Wording = (op) =>
  op['op'] === 'replace'
    ? `replace operation does not apply: doc is missing key: ${String(op['path'])}: missing value`
    : `${String(op['op'])} operation does not apply: doc is missing path: ${JSON.stringify(String(op['path']))}: missing value`;

/** evanphx/json-patch's wording for the failures clients meet; fast-json-patch's otherwise. */
const WORDING: Readonly<Partial<Record<string, Wording>>> = {
  TEST_OPERATION_FAILED: (op) => `testing value ${String(op['path'])} failed: test failed`,
  OPERATION_PATH_UNRESOLVABLE: missingPath,
  OPERATION_PATH_CANNOT_ADD: missingPath,
  OPERATION_FROM_UNRESOLVABLE: (op) =>
    `${String(op['op'])} operation does not apply: doc is missing from path: ${String(op['from'])}: missing value`,
  OPERATION_OP_INVALID: (op) => `Unexpected kind: ${String(op['op'])}`,
};

function describe(
  e: InstanceType<typeof jsonPatch.JsonPatchError>,
  ops: readonly unknown[],
): string {
  const failed = isJsonMap(e.operation) ? e.operation : ops[e.index ?? -1];
  const wording = WORDING[e.name];
  if (wording !== undefined) return wording(isJsonMap(failed) ? failed : {});
  return e.message.split('\n')[0] ?? e.message;
}

/** NewGenericServerResponse(422, ...): the generic text, the reason as the cause. */
export function patchFailed(reason: string): StatusError {
  return new StatusError({
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    code: 422,
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: reason }] },
  });
}
