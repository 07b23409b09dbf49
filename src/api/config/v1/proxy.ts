/**
 * config.openshift.io/v1 Proxy (singleton `cluster`): the cluster-wide HTTP(S) proxy. The operator
 * copies its **status** (what the network operator validated, not the spec) into the
 * ControllerConfig, from which nodes get `/etc/mco/proxy.env` (docs/reference/cluster-config.md §2–3).
 */
import { Type, type Static } from '@sinclair/typebox';
import { kindSchema } from '../../meta/v1/kind.js';
import { ConfigMapNameReferenceSchema } from './image.js';

const proxyUrls = {
  httpProxy: Type.Optional(
    Type.String({ description: 'httpProxy is the URL of the proxy for HTTP requests.' }),
  ),
  httpsProxy: Type.Optional(
    Type.String({ description: 'httpsProxy is the URL of the proxy for HTTPS requests.' }),
  ),
  noProxy: Type.Optional(
    Type.String({
      description:
        'noProxy is a comma-separated list of hostnames, CIDRs and IPs the proxy is bypassed for.',
    }),
  ),
};

const ProxySpecSchema = Type.Object(
  {
    ...proxyUrls,
    readinessEndpoints: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'readinessEndpoints is a list of endpoints used to verify readiness of the proxy.',
      }),
    ),
    trustedCA: Type.Optional(
      Type.Object(ConfigMapNameReferenceSchema.properties, {
        description:
          'trustedCA names a ConfigMap in openshift-config with a ca-bundle.crt of CAs to trust for the proxy.',
      }),
    ),
  },
  { description: 'Spec holds user-settable values for the proxy configuration' },
);

const ProxyStatusSchema = Type.Object(proxyUrls, {
  description: 'status holds observed values from the cluster. They may not be overridden.',
});

export const ProxySchema = kindSchema(
  'Proxy holds cluster-wide information on how to configure default proxies for the cluster.',
  { spec: ProxySpecSchema, status: Type.Optional(ProxyStatusSchema) },
);
export type Proxy = Static<typeof ProxySchema>;
