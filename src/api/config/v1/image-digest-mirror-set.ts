/**
 * config.openshift.io/v1 ImageDigestMirrorSet (`idms`): mirrors tried, in order, before the source
 * for images pulled by digest; `mirrorSourcePolicy: NeverContactSource` blocks the source itself.
 * The registries controller merges every set into registries.conf with
 * `pull-from-mirror = "digest-only"` (docs/reference/registries.md §1, §3).
 */
import {
  Type,
  type Static,
  type TArray,
  type TObject,
  type TOptional,
  type TString,
  type TUnsafe,
} from '@sinclair/typebox';
import { StringEnum } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { MirrorPattern, SourcePattern } from './registry-scopes.js';

const MirrorSourcePolicy = {
  NeverContactSource: 'NeverContactSource',
  AllowContactingSource: 'AllowContactingSource',
} as const;
type MirrorSourcePolicy = (typeof MirrorSourcePolicy)[keyof typeof MirrorSourcePolicy];

/** One source and its mirrors; shared by the digest and the tag mirror sets. */
type ImageMirrorsSchema = TObject<{
  source: TString;
  mirrors: TOptional<TArray<TString>>;
  mirrorSourcePolicy: TOptional<TUnsafe<MirrorSourcePolicy>>;
}>;

export function imageMirrorsSchema(
  description: string,
  pulledBy: 'digests' | 'tags',
): ImageMirrorsSchema {
  return Type.Object(
    {
      source: Type.String({
        description:
          'source is the repository users refer to in image pull specifications: host[:port], host[:port]/namespace[/namespace…][/repo], or *.host.',
        pattern: SourcePattern,
      }),
      mirrors: Type.Optional(
        Type.Array(Type.String({ pattern: MirrorPattern }), {
          description: `mirrors are locations that may hold the same images, tried in order before the source, for images referenced by their ${pulledBy}.`,
          'x-kubernetes-list-type': 'set',
        }),
      ),
      mirrorSourcePolicy: Type.Optional(
        StringEnum(
          [MirrorSourcePolicy.NeverContactSource, MirrorSourcePolicy.AllowContactingSource],
          {
            description:
              'mirrorSourcePolicy is what happens when every mirror fails: contact the source (the default) or never.',
          },
        ),
      ),
    },
    { description },
  );
}

const ImageDigestMirrorsSchema = imageMirrorsSchema(
  'ImageDigestMirrors holds cluster-wide information about how to handle mirrors in the registries config.',
  'digests',
);

export const ImageDigestMirrorSetSchema = kindSchema(
  'ImageDigestMirrorSet holds cluster-wide information about how to handle registry mirror rules on using digest pull specification.',
  {
    spec: Type.Object(
      {
        imageDigestMirrors: Type.Optional(
          Type.Array(ImageDigestMirrorsSchema, { 'x-kubernetes-list-type': 'atomic' }),
        ),
      },
      { description: 'spec holds user settable values for configuration' },
    ),
    status: Type.Optional(
      Type.Object({}, { description: 'status contains the observed state of the resource.' }),
    ),
  },
);
export type ImageDigestMirrorSet = Static<typeof ImageDigestMirrorSetSchema>;
