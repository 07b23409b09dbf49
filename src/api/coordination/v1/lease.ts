/**
 * coordination.k8s.io/v1 Lease: leader election for the controller and operator (holder,
 * duration, renew time). Times are MicroTime (RFC 3339 with microseconds).
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int32 } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';

const LeaseSpecSchema = Type.Object({
  holderIdentity: Type.Optional(Type.String()),
  leaseDurationSeconds: Type.Optional(Int32()),
  acquireTime: Type.Optional(DateTime()),
  renewTime: Type.Optional(DateTime()),
  leaseTransitions: Type.Optional(Int32()),
  strategy: Type.Optional(Type.String()),
  preferredHolder: Type.Optional(Type.String()),
});
export type LeaseSpec = Static<typeof LeaseSpecSchema>;

export const LeaseSchema = kindSchema('Lease defines a lease concept.', {
  spec: Type.Optional(LeaseSpecSchema),
});
export type Lease = Static<typeof LeaseSchema>;
