/**
 * metav1.LabelSelector: matchLabels ANDed with matchExpressions. Matching and printing live in
 * label-selector-matching.ts; this file is the wire shape.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringMap } from '../../schema.js';

const LabelSelectorRequirementSchema = Type.Object({
  key: Type.String({ description: 'key is the label key that the selector applies to.' }),
  operator: Type.String({
    description:
      "operator represents a key's relationship to a set of values.\nValid operators are In, NotIn, Exists and DoesNotExist.",
  }),
  values: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'values is an array of string values. If the operator is In or NotIn,\nthe values array must be non-empty. If the operator is Exists or DoesNotExist,\nthe values array must be empty.',
      'x-kubernetes-list-type': 'atomic',
    }),
  ),
});

export const LabelSelectorSchema = Type.Object(
  {
    matchExpressions: Type.Optional(
      Type.Array(LabelSelectorRequirementSchema, {
        description:
          'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    matchLabels: Type.Optional(
      StringMap({
        description:
          'matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels\nmap is equivalent to an element of matchExpressions, whose key field is "key", the\noperator is "In", and the values array contains only "value". The requirements are ANDed.',
      }),
    ),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);
export type LabelSelector = Static<typeof LabelSelectorSchema>;

/** A LabelSelector schema with its own description (pools, kubelet configs, PDBs). */
export function labelSelectorSchema(description: string): typeof LabelSelectorSchema {
  return Type.Object(LabelSelectorSchema.properties, {
    description,
    'x-kubernetes-map-type': 'atomic',
  });
}
