/**
 * config.openshift.io/v1 TLSSecurityProfile (`types_tlssecurityprofile.go`): one of the named
 * profiles (Old, Intermediate, Modern) or a custom one (ciphers in OpenSSL names and a minimum
 * version). Used by APIServer `cluster` and by KubeletConfig (docs/reference/cluster-config.md §1).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../schema.js';

const TLSProfileType = {
  Old: 'Old',
  Intermediate: 'Intermediate',
  Modern: 'Modern',
  Custom: 'Custom',
} as const;
type TLSProfileType = (typeof TLSProfileType)[keyof typeof TLSProfileType];

const TLSVersions = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;

const TLSProfileSpecSchema = Type.Object({
  ciphers: Type.Optional(
    Type.Array(Type.String(), {
      description: 'ciphers is the list of cipher suites allowed, in OpenSSL names.',
      'x-kubernetes-list-type': 'atomic',
    }),
  ),
  minTLSVersion: Type.Optional(
    StringEnum(TLSVersions, { description: 'minTLSVersion is the minimum TLS version allowed.' }),
  ),
});

export const TLSSecurityProfileSchema = Type.Object(
  {
    type: Type.Optional(
      StringEnum(
        [
          TLSProfileType.Old,
          TLSProfileType.Intermediate,
          TLSProfileType.Modern,
          TLSProfileType.Custom,
        ],
        {
          description: 'type is one of Old, Intermediate, Modern or Custom.',
        },
      ),
    ),
    old: Type.Optional(Nullable(Type.Object({}))),
    intermediate: Type.Optional(Nullable(Type.Object({}))),
    modern: Type.Optional(Nullable(Type.Object({}))),
    custom: Type.Optional(Nullable(TLSProfileSpecSchema)),
  },
  { description: 'tlsSecurityProfile specifies settings for TLS connections.' },
);
export type TLSSecurityProfile = Static<typeof TLSSecurityProfileSchema>;
