/**
 * MachineOSBuild (docs/reference/image-mode.md §4): one build of a pool's layered image, for one
 * rendered MachineConfig and one MachineOSConfig. The spec is immutable; the status carries the
 * five phase conditions (MachineOSBuildCondition), the build's times and, on success, the
 * pushed image by digest.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from '../../schema.js';
import { ConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { DigestSpecPattern, ObjectReferenceSchema, PushSpecPattern } from './machine-os-config.js';

/** Type → reason and message of each phase (upstream's apihelpers). */
export const MachineOSBuildCondition = {
  Prepared: { reason: 'Prepared', message: 'Build Prepared and Pending' },
  Building: { reason: 'Building', message: 'Image Build In Progress' },
  Failed: { reason: 'Failed', message: 'Build Failed' },
  Interrupted: { reason: 'Interrupted', message: 'Build Interrupted' },
  Succeeded: { reason: 'Ready', message: 'Build Ready' },
} as const;
export type MachineOSBuildPhase = keyof typeof MachineOSBuildCondition;
export const MachineOSBuildPhases = Object.keys(MachineOSBuildCondition) as MachineOSBuildPhase[];

const NameReference = Type.Object({ name: Type.String({ minLength: 1, maxLength: 253 }) });

const MachineOSBuildSpecSchema = Type.Object(
  {
    machineConfig: NameReference,
    machineOSConfig: NameReference,
    renderedImagePushSpec: Type.String({
      minLength: 1,
      maxLength: 447,
      pattern: PushSpecPattern,
    }),
  },
  {
    'x-kubernetes-validations': [
      { message: 'machineOSBuildSpec is immutable once set', rule: 'self == oldSelf' },
    ],
  },
);

const MachineOSBuildStatusSchema = Type.Object({
  conditions: Type.Optional(
    Type.Array(ConditionSchema, {
      maxItems: 8,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
  ),
  builder: Type.Optional(
    Type.Object({
      imageBuilderType: Type.String({ enum: ['Job'] }),
      job: Type.Optional(ObjectReferenceSchema),
    }),
  ),
  relatedObjects: Type.Optional(
    Type.Array(ObjectReferenceSchema, { maxItems: 10, 'x-kubernetes-list-type': 'atomic' }),
  ),
  buildStart: Type.Optional(DateTime()),
  buildEnd: Type.Optional(DateTime()),
  digestedImagePushSpec: Type.Optional(
    Type.String({ minLength: 1, maxLength: 447, pattern: DigestSpecPattern }),
  ),
});

export const MachineOSBuildSchema = Type.Object(
  kindSchema('MachineOSBuild describes a build process managed and deployed by the MCO', {
    spec: MachineOSBuildSpecSchema,
    status: Type.Optional(MachineOSBuildStatusSchema),
  }).properties,
  { description: 'MachineOSBuild describes a build process managed and deployed by the MCO' },
);
export type MachineOSBuild = Static<typeof MachineOSBuildSchema>;
