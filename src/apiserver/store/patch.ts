/**
 * PATCH (and PATCH /status): the four patch types applied to the current object, then the same
 * path as an update. Strategic merge on a custom resource is 415 (which `kubectl patch` relies
 * on); apply (patch-apply.ts) needs a fieldManager, tracks field ownership and creates absent
 * objects (`created: true`, HTTP 201). A
 * `metadata.resourceVersion` in the patch is a precondition (409 when stale); without one, a patch
 * that loses a race is re-applied to the new state.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { KubeObject, Patch, WriteOptions, WriteSubresource } from '../resource-store.js';
import { decodedYamlProblem } from '../request-limits.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreContext } from './context.js';
import { groupResource } from './errors.js';
import { isJsonMap, type JsonMap } from './json.js';
import { applyObject, parseApplyBody, requireFieldManager } from './patch-apply.js';
import { applyJsonPatch } from './patch-json.js';
import { applyMergePatch } from './patch-merge.js';
import { applyStrategicMergePatch } from './patch-strategic.js';
import { decodeBody, pruneAndReport } from './prepare.js';
import { afterLostRace, applyUpdate } from './update.js';
import { readCurrent, type Current } from './write.js';
import { errorText } from '../../lib/error-text.js';

export type PatchOptions = WriteOptions & {
  readonly subresource?: WriteSubresource;
  readonly force?: boolean;
};

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/** The patch media types a resource accepts, in the order the 415 message lists them. */
function acceptedPatchTypes(rt: ResourceType): string[] {
  return rt.builtIn
    ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH]
    : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
}

export async function patchObject({
  ctx,
  rt,
  namespace,
  name,
  patch,
  options,
}: {
  readonly ctx: StoreContext;
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly patch: Patch;
  readonly options: PatchOptions;
}): Promise<{ readonly object: KubeObject; readonly created: boolean }> {
  if (patch.type === 'strategic' && !rt.builtIn) {
    throw StatusError.unsupportedMediaType(acceptedPatchTypes(rt));
  }
  if (patch.type === 'apply') {
    requireFieldManager(options.fieldManager);
    return applyObject({ ctx, rt, namespace, name, body: parseAppliedBody(patch.body), options });
  }
  const body = parseJsonBody(patch.body);
  for (let attempt = 1; ; attempt++) {
    const current = await readCurrent(ctx, rt, namespace, name);
    if (current === undefined) throw StatusError.notFound(groupResource(rt), name);
    const { patched, precondition } = applyPatchTo(rt, current, patch.type, body);
    try {
      const incoming = decodeBody(rt, patched);
      pruneAndReport(ctx, rt, incoming, options);
      return {
        object: await applyUpdate({ ctx, rt, current, incoming, precondition, options }),
        created: false,
      };
    } catch (e) {
      afterLostRace({ e, rt, name, precondition, attempt });
    }
  }
}

function parseAppliedBody(text: string): JsonMap {
  const body = parseApplyBody(text);
  // a YAML alias can nest or repeat a subtree past what the text shows
  const aliased = decodedYamlProblem(body);
  if (aliased !== undefined) throw aliased;
  return body;
}

function parseJsonBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch (e) {
    throw StatusError.badRequest(errorText(e));
  }
}

/**
 * The patched object, and the resourceVersion it must be applied at: the one the patch set, if it
 * set one other than the current ('' means unconditional).
 */
function applyPatchTo(
  rt: ResourceType,
  current: Current,
  type: Exclude<Patch['type'], 'apply'>,
  body: unknown,
): { readonly patched: unknown; readonly precondition: string } {
  let patched: unknown;
  switch (type) {
    case 'json':
      patched = applyJsonPatch(current.obj, body);
      break;
    case 'merge':
      patched = applyMergePatch(current.obj, body);
      break;
    case 'strategic':
      patched = applyStrategicMergePatch(rt, current.obj, body);
      break;
  }
  const meta = isJsonMap(patched) ? patched['metadata'] : undefined;
  const rv = isJsonMap(meta) ? meta['resourceVersion'] : undefined;
  const conditional = typeof rv === 'string' && setsResourceVersion(type, body);
  return { patched, precondition: conditional ? rv : '' };
}

/** Whether the patch itself names a resourceVersion (rather than carrying the current one along). */
function setsResourceVersion(type: Patch['type'], body: unknown): boolean {
  if (type === 'json') {
    return (
      Array.isArray(body) &&
      body.some(
        (op) =>
          isJsonMap(op) && ['/metadata', '/metadata/resourceVersion'].includes(String(op['path'])),
      )
    );
  }
  const meta = isJsonMap(body) ? body['metadata'] : undefined;
  return (
    isJsonMap(meta) && meta['resourceVersion'] !== undefined && meta['resourceVersion'] !== null
  );
}
