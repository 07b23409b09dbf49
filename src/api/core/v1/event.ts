/**
 * core/v1 Event: what controllers record (`SelectingAll`, `RenderDegraded`, drain and reboot events;
 * docs/reference/catalog.md §A.4), listed by `kubectl get events`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int32, Nullable } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { ObjectReferenceSchema } from '../../meta/v1/object-reference.js';

export const EventType = { Normal: 'Normal', Warning: 'Warning' } as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

const EventSourceSchema = Type.Object({
  component: Type.Optional(Type.String()),
  host: Type.Optional(Type.String()),
});

const EventSeriesSchema = Type.Object({
  count: Type.Optional(Int32()),
  lastObservedTime: Type.Optional(DateTime()),
});

export const EventSchema = kindSchema('Event is a report of an event somewhere in the cluster.', {
  involvedObject: ObjectReferenceSchema,
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  source: Type.Optional(EventSourceSchema),
  firstTimestamp: Type.Optional(Nullable(DateTime())),
  lastTimestamp: Type.Optional(Nullable(DateTime())),
  count: Type.Optional(Int32()),
  type: Type.Optional(Type.String()),
  eventTime: Type.Optional(Nullable(DateTime())),
  series: Type.Optional(EventSeriesSchema),
  action: Type.Optional(Type.String()),
  related: Type.Optional(ObjectReferenceSchema),
  reportingComponent: Type.Optional(Type.String()),
  reportingInstance: Type.Optional(Type.String()),
});
export type Event = Static<typeof EventSchema>;
