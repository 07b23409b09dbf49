/**
 * config.openshift.io/v1 ClusterImagePolicy: a sigstore verification policy for image scopes,
 * cluster wide. Every scope becomes a `sigstoreSigned` requirement in policy.json and a
 * `use-sigstore-attachments` entry in registries.d (docs/reference/registries.md §5).
 */
import { Type, type Static } from '@sinclair/typebox';
import { kindSchema } from '../../meta/v1/kind.js';
import { ImagePolicySpecSchema, ImagePolicyStatusSchema } from './image-sigstore-policy.js';

export const ClusterImagePolicySchema = kindSchema(
  'ClusterImagePolicy holds cluster-wide configuration for image signature verification.',
  { spec: ImagePolicySpecSchema, status: Type.Optional(ImagePolicyStatusSchema) },
);
export type ClusterImagePolicy = Static<typeof ClusterImagePolicySchema>;
