/**
 * config.openshift.io/v1 ImageTagMirrorSet (`itms`): mirrors for images pulled by tag, merged into
 * registries.conf with `pull-from-mirror = "tag-only"` (docs/reference/registries.md §1, §3).
 */
import { Type, type Static } from '@sinclair/typebox';
import { kindSchema } from '../../meta/v1/kind.js';
import { imageMirrorsSchema } from './image-digest-mirror-set.js';

const ImageTagMirrorsSchema = imageMirrorsSchema(
  'ImageTagMirrors holds cluster-wide information about how to handle mirrors in the registries config.',
  'tags',
);

export const ImageTagMirrorSetSchema = kindSchema(
  'ImageTagMirrorSet holds cluster-wide information about how to handle registry mirror rules on using tag pull specification.',
  {
    spec: Type.Object(
      {
        imageTagMirrors: Type.Optional(
          Type.Array(ImageTagMirrorsSchema, { 'x-kubernetes-list-type': 'atomic' }),
        ),
      },
      { description: 'spec holds user settable values for configuration' },
    ),
    status: Type.Optional(
      Type.Object({}, { description: 'status contains the observed state of the resource.' }),
    ),
  },
);
export type ImageTagMirrorSet = Static<typeof ImageTagMirrorSetSchema>;
