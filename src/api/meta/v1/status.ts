/**
 * metav1.Status: the body of every non-2xx API response (and of watch ERROR events). Field order
 * and omissions follow Go's JSON encoding: kind, apiVersion, metadata, status, message, reason,
 * details, code; empty strings and zero numbers are left out.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int32, StringEnum } from '../../schema.js';

/** metav1.StatusReason values the API server answers with. */
export const StatusReason = {
  Unknown: '',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Invalid: 'Invalid',
  ServerTimeout: 'ServerTimeout',
  StoreReadError: 'StorageReadError',
  Timeout: 'Timeout',
  TooManyRequests: 'TooManyRequests',
  BadRequest: 'BadRequest',
  MethodNotAllowed: 'MethodNotAllowed',
  NotAcceptable: 'NotAcceptable',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  UnsupportedMediaType: 'UnsupportedMediaType',
  InternalError: 'InternalError',
  Expired: 'Expired',
  ServiceUnavailable: 'ServiceUnavailable',
} as const;
export type StatusReason = (typeof StatusReason)[keyof typeof StatusReason];

const StatusCauseSchema = Type.Object({
  /** CauseType, e.g. `FieldValueInvalid`; JSON name is `reason`. */
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
});
export type StatusCause = Static<typeof StatusCauseSchema>;

const StatusDetailsSchema = Type.Object({
  name: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
  /** The plural resource (NotFound/AlreadyExists/Conflict) or the Kind (Invalid). */
  kind: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  causes: Type.Optional(Type.Array(StatusCauseSchema)),
  retryAfterSeconds: Type.Optional(Int32()),
});
export type StatusDetails = Static<typeof StatusDetailsSchema>;

export const StatusSchema = Type.Object({
  kind: Type.Optional(Type.String()),
  apiVersion: Type.Optional(Type.String()),
  metadata: Type.Optional(
    Type.Object({
      resourceVersion: Type.Optional(Type.String()),
      continue: Type.Optional(Type.String()),
    }),
  ),
  status: Type.Optional(StringEnum(['Success', 'Failure'])),
  message: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  details: Type.Optional(StatusDetailsSchema),
  code: Type.Optional(Int32()),
});
export type Status = Static<typeof StatusSchema>;
