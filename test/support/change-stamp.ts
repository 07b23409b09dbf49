/**
 * A MachineConfig's annotations without the API server's change stamp (update audit), which
 * every stored MachineConfig carries: what is left is what its writer set. The stamp must be there.
 */
import { expect } from 'vitest';
import { AuditAnnotation } from '../../src/api/machineconfiguration/v1/update-audit.js';

export function withoutChangeStamp(
  annotations: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const {
    [AuditAnnotation.changedBy]: by,
    [AuditAnnotation.changedAt]: at,
    ...rest
  } = annotations ?? {};
  expect(by, 'the change stamp').toMatch(/\S/);
  expect(at, 'the change stamp').toMatch(/Z$/);
  return rest;
}
