/**
 * config.openshift.io/v1 APIServer (singleton `cluster`): cluster-wide API server settings. The
 * MCO reads `spec.tlsSecurityProfile`: the kubelet's TLS minimum version and ciphers follow it
 * unless a KubeletConfig sets its own (docs/reference/cluster-config.md §1).
 */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { ConfigMapNameReferenceSchema } from './image.js';
import { TLSSecurityProfileSchema } from './tls-security-profile.js';

const AuditProfiles = ['Default', 'WriteRequestBodies', 'AllRequestBodies', 'None'] as const;

const APIServerSpecSchema = Type.Object(
  {
    servingCerts: Type.Optional(
      Type.Object({
        namedCertificates: Type.Optional(
          Type.Array(
            Type.Object({
              names: Type.Optional(
                Type.Array(Type.String(), { maxItems: 64, 'x-kubernetes-list-type': 'atomic' }),
              ),
              servingCertificate: Type.Optional(
                Type.Object(ConfigMapNameReferenceSchema.properties),
              ),
            }),
            { maxItems: 32, 'x-kubernetes-list-type': 'atomic' },
          ),
        ),
      }),
    ),
    clientCA: Type.Optional(Type.Object(ConfigMapNameReferenceSchema.properties)),
    additionalCORSAllowedOrigins: Type.Optional(
      Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' }),
    ),
    encryption: Type.Optional(
      Type.Object({ type: Type.Optional(StringEnum(['', 'identity', 'aescbc', 'aesgcm'])) }),
    ),
    tlsSecurityProfile: Type.Optional(TLSSecurityProfileSchema),
    audit: Type.Optional(
      Type.Object(
        {
          profile: Type.Optional(StringEnum(AuditProfiles, { default: 'Default' })),
          customRules: Type.Optional(
            Type.Array(
              Type.Object({
                group: Type.String({ minLength: 1 }),
                profile: StringEnum(AuditProfiles),
              }),
              { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['group'] },
            ),
          ),
        },
        { default: { profile: 'Default' } },
      ),
    ),
  },
  { description: 'spec holds user settable values for configuration' },
);

export const APIServerSchema = kindSchema(
  'APIServer holds configuration (like serving certificates, client CA and CORS domains) shared by all API servers in the system. The canonical name is `cluster`.',
  {
    spec: APIServerSpecSchema,
    status: Type.Optional(
      Type.Object({}, { description: 'status holds observed values from the cluster.' }),
    ),
  },
);
