/**
 * The API server's stamp on a MachineConfig write (api/machineconfiguration/v1/update-audit.ts):
 * the requesting user and the time, whenever the write changes what renders (its spec or its
 * labels, which choose its pools), and otherwise the stamp it had. What the client sent in those
 * annotations is never kept: a user cannot put a change on someone else.
 */
import { AuditAnnotation } from '../../api/machineconfiguration/v1/update-audit.js';
import { jsonEqual } from '../../lib/json-equal.js';
import type { KubeObject, UserInfo } from '../resource-store.js';
import { isJsonMap } from './json.js';

function annotationsOf(obj: KubeObject): Record<string, unknown> {
  const meta = obj.metadata as Record<string, unknown>;
  if (!isJsonMap(meta['annotations'])) meta['annotations'] = {};
  return meta['annotations'] as Record<string, unknown>;
}

export function stampMachineConfigChange(
  old: KubeObject | undefined,
  next: KubeObject,
  user: UserInfo,
  now: string,
): void {
  const annotations = annotationsOf(next);
  const changed =
    old === undefined ||
    !jsonEqual(old['spec'] ?? null, next['spec'] ?? null) ||
    !jsonEqual(old.metadata.labels ?? {}, next.metadata.labels ?? {});
  const before = old?.metadata.annotations ?? {};
  for (const [key, value] of [
    [AuditAnnotation.changedBy, changed ? user.name : before[AuditAnnotation.changedBy]],
    [AuditAnnotation.changedAt, changed ? now : before[AuditAnnotation.changedAt]],
  ] as const) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- one of two fixed keys
    if (value === undefined) delete annotations[key];
    else annotations[key] = value;
  }
}
