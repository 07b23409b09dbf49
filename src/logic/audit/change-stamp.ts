/**
 * Who last changed a MachineConfig: the API server's stamp (the requesting user, recorded when it
 * admitted the write) when there is one; on an API server that does not stamp (kube-apiserver),
 * the field manager and time of the newest write in managedFields, which names a client, not a
 * person (kube records users only in its audit log).
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  AuditAnnotation,
  type ChangeStamp,
} from '../../api/machineconfiguration/v1/update-audit.js';

export function changeStampOf(mc: MachineConfig): ChangeStamp | undefined {
  const a = mc.metadata.annotations ?? {};
  const by = a[AuditAnnotation.changedBy];
  if (by !== undefined && by !== '')
    return { by, at: a[AuditAnnotation.changedAt] ?? '', source: 'admission' };
  let newest: ChangeStamp | undefined;
  for (const f of mc.metadata.managedFields ?? []) {
    if (f.subresource !== undefined && f.subresource !== '') continue;
    const at = f.time ?? '';
    if (newest === undefined || at > newest.at)
      newest = { by: f.manager ?? 'unknown', at, source: 'managedFields' };
  }
  return newest;
}

/** `alice at 2026-12-07T10:00:00Z`, or `the client kubectl-client-side-apply at …`. */
export function changeStampText(s: ChangeStamp | undefined): string {
  if (s === undefined) return 'by an unknown writer';
  const who = s.source === 'admission' ? s.by : `the client ${s.by} (no user recorded)`;
  return s.at === '' ? `by ${who}` : `by ${who} at ${s.at}`;
}
