/**
 * config.openshift.io/v1 DNS (singleton `cluster`): the cluster's base domain and DNS zones. The
 * operator embeds the whole object in the ControllerConfig; templates read `spec.baseDomain`
 * (docs/reference/cluster-config.md §2–3).
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, StringMap } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { PlatformTypes } from './infrastructure.js';

const DNSZoneSchema = Type.Object({
  id: Type.Optional(Type.String({ description: 'id is the identifier of the zone.' })),
  tags: Type.Optional(StringMap({ description: 'tags can be used to query the zone.' })),
});

const DNSSpecSchema = Type.Object(
  {
    baseDomain: Type.Optional(
      Type.String({ description: 'baseDomain is the base domain of the cluster.' }),
    ),
    publicZone: Type.Optional(DNSZoneSchema),
    privateZone: Type.Optional(DNSZoneSchema),
    platform: Type.Optional(
      Type.Object(
        {
          type: StringEnum(PlatformTypes, {
            'x-kubernetes-validations': [
              { rule: "self in ['','AWS']", message: "allowed values are '' and 'AWS'" },
            ],
          }),
          aws: Type.Optional(
            Type.Object({
              privateZoneIAMRole: Type.Optional(
                Type.String({
                  'x-kubernetes-validations': [
                    {
                      rule: "self.matches('^arn:(aws|aws-cn|aws-us-gov):iam::[0-9]{12}:role/.*$')",
                      message:
                        'privateZoneIAMRole must be a valid AWS IAM role ARN in the format: arn:<partition>:iam::<account-id>:role/<role-name>',
                    },
                  ],
                }),
              ),
            }),
          ),
        },
        {
          'x-kubernetes-validations': [
            {
              rule: "has(self.type) && self.type == 'AWS' ?  has(self.aws) : !has(self.aws)",
              message:
                'aws configuration is required when platform is AWS, and forbidden otherwise',
            },
          ],
        },
      ),
    ),
  },
  { description: 'spec holds user settable values for configuration' },
);

export const DNSSchema = kindSchema(
  'DNS holds cluster-wide information about DNS. The canonical name is `cluster`',
  {
    spec: DNSSpecSchema,
    status: Type.Optional(Type.Object({}, { description: 'status holds observed values.' })),
  },
);
export type DNS = Static<typeof DNSSchema>;
