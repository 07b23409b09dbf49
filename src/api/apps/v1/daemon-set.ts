/**
 * apps/v1 DaemonSet, metadata plus a minimal spec/status: the operator deploys the daemon as one,
 * and drains recognise DaemonSet-owned pods through owner references. The pod template is kept raw.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, RawObject } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { LabelSelectorSchema } from '../../meta/v1/label-selector.js';

const DaemonSetSpecSchema = Type.Object(
  {
    selector: LabelSelectorSchema,
    template: RawObject({ description: 'The pod template (metadata + PodSpec), kept as is.' }),
    updateStrategy: Type.Optional(RawObject()),
    minReadySeconds: Type.Optional(Int32()),
    revisionHistoryLimit: Type.Optional(Int32()),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const DaemonSetStatusSchema = Type.Object(
  {
    currentNumberScheduled: Int32(),
    numberMisscheduled: Int32(),
    desiredNumberScheduled: Int32(),
    numberReady: Int32(),
    observedGeneration: Type.Optional(Int64()),
    updatedNumberScheduled: Type.Optional(Int32()),
    numberAvailable: Type.Optional(Int32()),
    numberUnavailable: Type.Optional(Int32()),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

export const DaemonSetSchema = kindSchema(
  'DaemonSet represents the configuration of a daemon set.',
  {
    spec: Type.Optional(DaemonSetSpecSchema),
    status: Type.Optional(DaemonSetStatusSchema),
  },
);
export type DaemonSet = Static<typeof DaemonSetSchema>;
