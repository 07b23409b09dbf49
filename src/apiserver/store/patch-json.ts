/**
 * JSON patch (RFC 6902, `application/json-patch+json`), including `test`. A body that is not a
 * list of operations is 400; an operation that cannot apply is 422 with the reason as the single
 * `UnexpectedServerResponse` cause, as the real server answers.
 *
 * Bounded as kube-apiserver bounds it: at most 10,000 operations (413), and `copy` operations may
 * add at most 3 MiB together (422), since each one can double the document. The document's nesting
 * is bounded too (422 past `MaxNestingDepth`): `move` and `copy` can put a subtree under itself,
 * and a few of them nest a document deep enough to overflow the stack in what follows. The bound is
 * kept from the operations' paths (a subtree moved from path `f` to path `p` ends at most
 * `|p| + depth - |f|` deep) and measured again only when it is passed.
 */
// fast-json-patch is CommonJS whose named exports Node cannot detect; its default is module.exports
import jsonPatch, { type Operation } from 'fast-json-patch';
import { StatusError } from '../../api/meta/v1/status-error.js';
import { measureJson } from '../../lib/json-extent.js';
import { MaxJsonPatchCopyBytes, MaxNestingDepth } from '../request-limits.js';
import { goJsonKind, isJsonMap, type JsonMap } from './json.js';

/** maxJSONPatchOperations. */
const MaxJsonPatchOperations = 10_000;

/** How often one patch may have its document measured again when the bound says it is too deep. */
const MaxRemeasures = 16;

export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw StatusError.badRequest(
      `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type jsonpatch.Patch`,
    );
  }
  if (patch.length > MaxJsonPatchOperations) {
    throw StatusError.requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${String(MaxJsonPatchOperations)}, got ${String(patch.length)}`,
    );
  }
  const ops = patch as Operation[];
  const bounds = new PatchBounds(target);
  let document: unknown = jsonPatch.deepClone(target);
  try {
    for (const [index, op] of ops.entries()) {
      bounds.before(document, op);
      document = jsonPatch.applyOperation(document, op, true, true, true, index).newDocument;
    }
  } catch (e) {
    if (e instanceof jsonPatch.JsonPatchError) throw patchFailed(describe(e, patch));
    throw e;
  }
  return document;
}

/** Segments of a JSON pointer (`/a/b` is 2; the root `''` is 0). */
function pointerLength(pointer: unknown): number {
  if (typeof pointer !== 'string' || pointer === '') return 0;
  let n = 0;
  for (let i = pointer.indexOf('/'); i >= 0; i = pointer.indexOf('/', i + 1)) n++;
  return n;
}

/** The copy budget and an upper bound of the document's nesting, kept across the operations. */
class PatchBounds {
  #depth: number;
  #copied = 0;
  #remeasures = 0;

  constructor(target: unknown) {
    this.#depth = measureJson(target, { maxDepth: Infinity, maxBytes: Infinity }).depth;
  }

  /** Checks what `op` would do to `document` before it runs. */
  before(document: unknown, op: Operation): void {
    const path = pointerLength(op.path);
    let added = 0;
    if (op.op === 'add' || op.op === 'replace' || op.op === 'test') {
      added = measureJson(op.value, { maxDepth: MaxNestingDepth, maxBytes: Infinity }).depth;
    } else if (op.op === 'copy') {
      added = this.#copy(document, op.from);
    } else if (op.op === 'move') {
      added = this.#depth - pointerLength(op.from);
    }
    if (path + added <= this.#depth) return;
    this.#depth = path + added;
    if (this.#depth <= MaxNestingDepth) return;
    // the bound is loose after moves; measure the document as it is (the move has not run yet)
    if (this.#remeasures < MaxRemeasures) {
      this.#remeasures += 1;
      const now = measureJson(document, { maxDepth: MaxNestingDepth, maxBytes: Infinity }).depth;
      const moved = op.op === 'move' ? Math.max(0, now - pointerLength(op.from)) : added;
      this.#depth = Math.max(now, path + moved);
      if (this.#depth <= MaxNestingDepth) return;
    }
    throw patchFailed(
      `the patched object would nest deeper than ${String(MaxNestingDepth)} levels`,
    );
  }

  /** The copied value's nesting; its JSON size is charged to the budget. */
  #copy(document: unknown, from: string): number {
    let value: unknown;
    try {
      value = jsonPatch.getValueByPointer(document, from);
    } catch {
      return 0; // the operation fails on its own, with fast-json-patch's reason
    }
    const budget = MaxJsonPatchCopyBytes - this.#copied;
    const measured = measureJson(value, { maxDepth: Infinity, maxBytes: budget });
    this.#copied += measured.bytes;
    if (measured.exceeded === 'bytes') {
      throw patchFailed(
        `Unable to complete the copy, the accumulated size increase of copy is ${String(this.#copied)}, exceeding the limit ${String(MaxJsonPatchCopyBytes)}`,
      );
    }
    return measured.depth;
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
function patchFailed(reason: string): StatusError {
  return new StatusError({
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    code: 422,
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: reason }] },
  });
}
