/**
 * config.openshift.io/v1 ImagePolicy: the namespaced form of ClusterImagePolicy. Its scopes become
 * `/etc/crio/policies/<namespace>.json`, except those equal to or nested in a ClusterImagePolicy
 * scope, which are dropped and reported in its `Pending` condition (docs/reference/registries.md §5).
 */
import { Type, type Static } from '@sinclair/typebox';
import { kindSchema } from '../../meta/v1/kind.js';
import { ImagePolicySpecSchema, ImagePolicyStatusSchema } from './image-sigstore-policy.js';

export const ImagePolicySchema = kindSchema(
  'ImagePolicy holds namespace-wide configuration for image signature verification.',
  { spec: ImagePolicySpecSchema, status: Type.Optional(ImagePolicyStatusSchema) },
);
export type ImagePolicy = Static<typeof ImagePolicySchema>;
