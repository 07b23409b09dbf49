/**
 * operator.openshift.io/v1alpha1 ImageContentSourcePolicy: the older form of digest mirrors. The
 * registries controller treats each `repositoryDigestMirrors` entry as an ImageDigestMirrorSet
 * entry with no `mirrorSourcePolicy` (docs/reference/registries.md §1, §3). Its CRD checks no
 * formats; the controller does.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { CrdInfo } from '../../apiextensions/v1/custom-resource-definition.js';
import { kindSchema } from '../../meta/v1/kind.js';

const RepositoryDigestMirrorsSchema = Type.Object({
  source: Type.String({ description: 'source is the repository that users refer to.' }),
  mirrors: Type.Optional(
    Type.Array(Type.String(), {
      description: 'mirrors is one or more repositories that may also contain the same images.',
    }),
  ),
});

export const ImageContentSourcePolicySchema = kindSchema(
  'ImageContentSourcePolicy holds cluster-wide information about how to handle registry mirror rules.',
  {
    spec: Type.Object(
      { repositoryDigestMirrors: Type.Optional(Type.Array(RepositoryDigestMirrorsSchema)) },
      { description: 'spec holds user settable values for configuration' },
    ),
  },
);
export type ImageContentSourcePolicy = Static<typeof ImageContentSourcePolicySchema>;

export const ImageContentSourcePolicyCrd: CrdInfo = {
  group: 'operator.openshift.io',
  version: 'v1alpha1',
  kind: 'ImageContentSourcePolicy',
  listKind: 'ImageContentSourcePolicyList',
  plural: 'imagecontentsourcepolicies',
  singular: 'imagecontentsourcepolicy',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [],
};
