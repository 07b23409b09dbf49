/**
 * The cluster configuration kinds the MCO reads (config.openshift.io/v1 Image, mirror sets, image
 * policies, Proxy, DNS, Network, Infrastructure, APIServer; operator.openshift.io/v1alpha1
 * ImageContentSourcePolicy), served by the box and installed as CRDs like the MCO's own kinds.
 * On a real cluster the config operator owns these CRDs; the box has no such operator.
 */
import { APIServerSchema } from './config/v1/apiserver.js';
import { ClusterImagePolicySchema } from './config/v1/cluster-image-policy.js';
import {
  APIServerCrd,
  ClusterImagePolicyCrd,
  DNSCrd,
  ImageCrd,
  ImageDigestMirrorSetCrd,
  ImagePolicyCrd,
  ImageTagMirrorSetCrd,
  InfrastructureCrd,
  NetworkCrd,
  ProxyCrd,
} from './config/v1/crd-info.js';
import { DNSSchema } from './config/v1/dns.js';
import { ImageDigestMirrorSetSchema } from './config/v1/image-digest-mirror-set.js';
import { ImagePolicySchema } from './config/v1/image-policy.js';
import { ImageTagMirrorSetSchema } from './config/v1/image-tag-mirror-set.js';
import { ImageSchema } from './config/v1/image.js';
import { InfrastructureSchema } from './config/v1/infrastructure.js';
import { NetworkSchema } from './config/v1/network.js';
import { ProxySchema } from './config/v1/proxy.js';
import type { CustomKind } from './apiextensions/v1/custom-resource-definition.js';
import {
  ImageContentSourcePolicyCrd,
  ImageContentSourcePolicySchema,
} from './operator/v1alpha1/image-content-source-policy.js';

export const ClusterConfigKinds: readonly CustomKind[] = [
  { info: ImageCrd, schema: ImageSchema },
  { info: ImageDigestMirrorSetCrd, schema: ImageDigestMirrorSetSchema },
  { info: ImageTagMirrorSetCrd, schema: ImageTagMirrorSetSchema },
  { info: ImageContentSourcePolicyCrd, schema: ImageContentSourcePolicySchema },
  { info: ClusterImagePolicyCrd, schema: ClusterImagePolicySchema },
  { info: ImagePolicyCrd, schema: ImagePolicySchema },
  { info: ProxyCrd, schema: ProxySchema },
  { info: DNSCrd, schema: DNSSchema },
  { info: NetworkCrd, schema: NetworkSchema },
  { info: InfrastructureCrd, schema: InfrastructureSchema },
  { info: APIServerCrd, schema: APIServerSchema },
];
