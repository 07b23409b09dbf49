/**
 * CRD names and printer columns of the config.openshift.io/v1 kinds the MCO uses, as openshift/api's
 * `config/v1/zz_generated.crd-manifests` declare them (`oc get co`, `oc get clusterversion`).
 */
import type { CrdInfo } from '../../apiextensions/v1/custom-resource-definition.js';
import { ConfigGroup } from './cluster-operator.js';

const condition = (type: string, field: string): string =>
  `.status.conditions[?(@.type=="${type}")].${field}`;

export const ClusterOperatorCrd: CrdInfo = {
  group: ConfigGroup,
  version: 'v1',
  kind: 'ClusterOperator',
  listKind: 'ClusterOperatorList',
  plural: 'clusteroperators',
  singular: 'clusteroperator',
  shortNames: ['co'],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [
    {
      name: 'Version',
      type: 'string',
      jsonPath: '.status.versions[?(@.name=="operator")].version',
      description: 'The version the operator is at.',
    },
    {
      name: 'Available',
      type: 'string',
      jsonPath: condition('Available', 'status'),
      description: 'Whether the operator is running and stable.',
    },
    {
      name: 'Progressing',
      type: 'string',
      jsonPath: condition('Progressing', 'status'),
      description: 'Whether the operator is processing changes.',
    },
    {
      name: 'Degraded',
      type: 'string',
      jsonPath: condition('Degraded', 'status'),
      description: 'Whether the operator is degraded.',
    },
    {
      name: 'Since',
      type: 'date',
      jsonPath: condition('Available', 'lastTransitionTime'),
      description: "The time the operator's Available status last changed.",
    },
  ],
};

export const ClusterVersionCrd: CrdInfo = {
  group: ConfigGroup,
  version: 'v1',
  kind: 'ClusterVersion',
  listKind: 'ClusterVersionList',
  plural: 'clusterversions',
  singular: 'clusterversion',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [
    {
      name: 'Version',
      type: 'string',
      jsonPath: '.status.history[?(@.state=="Completed")].version',
    },
    { name: 'Available', type: 'string', jsonPath: condition('Available', 'status') },
    { name: 'Progressing', type: 'string', jsonPath: condition('Progressing', 'status') },
    { name: 'Since', type: 'date', jsonPath: condition('Progressing', 'lastTransitionTime') },
    { name: 'Status', type: 'string', jsonPath: condition('Progressing', 'message') },
  ],
};

/** A config.openshift.io/v1 kind without printer columns, as most of them are. */
function configKind(
  kind: string,
  plural: string,
  options: {
    readonly shortNames?: readonly string[];
    readonly namespaced?: boolean;
    readonly status?: boolean;
  } = {},
): CrdInfo {
  return {
    group: ConfigGroup,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: options.shortNames ?? [],
    scope: options.namespaced === true ? 'Namespaced' : 'Cluster',
    hasStatusSubresource: options.status ?? true,
    additionalPrinterColumns: [],
  };
}

export const ImageCrd = configKind('Image', 'images');
export const ImageDigestMirrorSetCrd = configKind('ImageDigestMirrorSet', 'imagedigestmirrorsets', {
  shortNames: ['idms'],
});
export const ImageTagMirrorSetCrd = configKind('ImageTagMirrorSet', 'imagetagmirrorsets', {
  shortNames: ['itms'],
});
export const ClusterImagePolicyCrd = configKind('ClusterImagePolicy', 'clusterimagepolicies');
export const ImagePolicyCrd = configKind('ImagePolicy', 'imagepolicies', { namespaced: true });
export const ProxyCrd = configKind('Proxy', 'proxies');
export const DNSCrd = configKind('DNS', 'dnses');
/** The Default feature set's Network CRD has no status subresource. */
export const NetworkCrd = configKind('Network', 'networks', { status: false });
export const InfrastructureCrd = configKind('Infrastructure', 'infrastructures');
export const APIServerCrd = configKind('APIServer', 'apiservers');
