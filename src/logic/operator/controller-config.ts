/**
 * The ControllerConfig the operator writes (docs/reference/api.md §2.4,
 * docs/reference/operator.md §9.1, docs/reference/upgrade.md §10): the cluster facts the
 * template controller renders base MachineConfigs from, with the OS images of the release taken
 * from the `machine-config-osimageurl` ConfigMap, and the annotations that gate rendering on the
 * operator's version. Also upstream's "Completed" gate, which the operator waits on.
 */
import {
  Annotation,
  ControllerConfigConditionType,
  ControllerConfigName,
} from '../../api/machineconfiguration/v1/constants.js';
import type {
  ControllerConfig,
  ControllerConfigSpec,
} from '../../api/machineconfiguration/v1/controller-config.js';
import { stringify } from 'safe-stable-stringify';
import { err, ok, type Result } from '../../lib/result.js';
import type { CertificateInputs } from './certificate-inputs.js';
import type { DiscoveredSpec } from './discovered-cluster-config.js';
import type { OsImageUrls } from './os-image-urls.js';

/**
 * Cluster facts from the operator's flags: what a cluster without Network and Infrastructure
 * objects gets (upstream reads them from those objects only, discovered-cluster-config.ts).
 */
export interface ClusterFacts {
  readonly clusterDNSIP: string;
  readonly cloudProviderConfig: string;
  readonly ipFamilies: string;
  readonly releaseImage: string;
  readonly images: Readonly<Record<string, string>>;
}

const DefaultClusterFacts: ClusterFacts = {
  clusterDNSIP: '172.30.0.10',
  cloudProviderConfig: '',
  ipFamilies: 'IPv4',
  releaseImage: '',
  images: {},
};

export interface ControllerConfigInput {
  readonly osImages: OsImageUrls;
  /** The operator's release version (`release-image-version`). */
  readonly releaseVersion: string;
  /** The operator's build version, upstream `version.Raw` (`generated-by-version`). */
  readonly operatorVersion: string;
  /** Base64 PEM of the CA that signed the machine config server (upstream: root-ca). */
  readonly rootCAData: string;
  /** Base64 PEM the kubelet trusts the API server's clients with. */
  readonly kubeAPIServerServingCAData: string;
  readonly cluster?: Partial<ClusterFacts>;
  /** The CA bundles read from the cluster (certificate-inputs.ts); absent: none. */
  readonly certificates?: Omit<CertificateInputs, 'kubeAPIServerServingCAData'>;
  /** What the cluster's Infrastructure, Network, DNS and Proxy decide; it wins over `cluster`. */
  readonly discovered?: DiscoveredSpec | undefined;
}

const ServiceCaRotate = { True: 'true', False: 'false' } as const;

/** The entries whose value is set: optional spec fields stay absent rather than undefined. */
function definedOnly<T extends Record<string, string | undefined>>(
  fields: T,
): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: string;
  };
}

function certificateFields(certificates: ControllerConfigInput['certificates']) {
  return {
    cloudProviderCAData: certificates?.cloudProviderCAData ?? null,
    additionalTrustBundle: certificates?.additionalTrustBundle ?? null,
    imageRegistryBundleData: certificates?.imageRegistryBundleData ?? [],
    imageRegistryBundleUserData: certificates?.imageRegistryBundleUserData ?? [],
  };
}

function controllerConfigSpec(input: ControllerConfigInput): ControllerConfigSpec {
  const facts = { ...DefaultClusterFacts, ...input.cluster };
  const found = input.discovered ?? {};
  return {
    clusterDNSIP: found.clusterDNSIP ?? facts.clusterDNSIP,
    cloudProviderConfig: facts.cloudProviderConfig,
    ...definedOnly({ platform: found.platform, etcdDiscoveryDomain: found.etcdDiscoveryDomain }),
    kubeAPIServerServingCAData: input.kubeAPIServerServingCAData,
    rootCAData: input.rootCAData,
    ...certificateFields(input.certificates),
    pullSecret: { namespace: 'openshift-config', name: 'pull-secret' },
    images: { ...facts.images },
    baseOSContainerImage: input.osImages.baseOSContainerImage,
    baseOSExtensionsContainerImage: input.osImages.baseOSExtensionsContainerImage,
    osImageURL: input.osImages.osImageURL,
    releaseImage: facts.releaseImage,
    proxy: found.proxy ?? null,
    infra: found.infra ?? null,
    dns: found.dns ?? null,
    ipFamilies: found.ipFamilies ?? facts.ipFamilies,
    ...definedOnly({ networkType: found.networkType }),
    network: found.network ?? null,
  };
}

/**
 * The ControllerConfig to write over `existing` (undefined: create it), or undefined when nothing
 * changes. Like upstream's apply: the spec is replaced, the operator's annotations set, other
 * metadata kept. `service-ca-rotate` is "true" when the kubelet's API server CA is new (the
 * object is created or the bundle changed), which tells the daemons to rewrite it.
 */
export function applyControllerConfig(
  existing: ControllerConfig | undefined,
  input: ControllerConfigInput,
): ControllerConfig | undefined {
  const spec = controllerConfigSpec(input);
  const rotate =
    existing?.spec.kubeAPIServerServingCAData === spec.kubeAPIServerServingCAData
      ? ServiceCaRotate.False
      : ServiceCaRotate.True;
  const annotations = {
    ...existing?.metadata.annotations,
    [Annotation.generatedByVersion]: input.operatorVersion,
    [Annotation.serviceCaRotate]: rotate,
    [Annotation.releaseImageVersion]: input.releaseVersion,
  };
  const desired: ControllerConfig = {
    ...existing,
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { ...existing?.metadata, name: ControllerConfigName, annotations },
    spec,
  };
  if (
    existing !== undefined &&
    stringify(existing.spec) === stringify(spec) &&
    stringify(existing.metadata.annotations ?? {}) === stringify(annotations)
  )
    return undefined;
  return desired;
}

export type ControllerConfigNotCompleted =
  | {
      readonly kind: 'ObservedGeneration';
      readonly name: string;
      readonly observed: number;
      readonly generation: number;
    }
  | {
      readonly kind: 'NotCompleted';
      readonly completed: boolean;
      readonly running: boolean;
      readonly failing: boolean;
    };

/** Upstream IsControllerConfigCompleted's texts. */
export function describeControllerConfigNotCompleted(e: ControllerConfigNotCompleted): string {
  switch (e.kind) {
    case 'ObservedGeneration':
      return `status for ControllerConfig ${e.name} is being reported for ${e.observed}, expecting it for ${e.generation}`;
    case 'NotCompleted':
      return `ControllerConfig has not completed: completed(${e.completed}) running(${e.running}) failing(${e.failing})`;
  }
}

/**
 * The template controller has finished with this generation: observed, Completed=True, neither
 * Running nor Failing.
 */
export function controllerConfigCompleted(
  cc: ControllerConfig,
): Result<void, ControllerConfigNotCompleted> {
  const generation = cc.metadata.generation ?? 0;
  const observed = cc.status?.observedGeneration ?? 0;
  if (generation !== observed)
    return err({
      kind: 'ObservedGeneration',
      name: cc.metadata.name ?? '',
      observed,
      generation,
    });
  const isTrue = (type: string): boolean =>
    cc.status?.conditions?.find((c) => c.type === type)?.status === 'True';
  const completed = isTrue(ControllerConfigConditionType.TemplateControllerCompleted);
  const running = isTrue(ControllerConfigConditionType.TemplateControllerRunning);
  const failing = isTrue(ControllerConfigConditionType.TemplateControllerFailing);
  if (completed && !running && !failing) return ok(undefined);
  return err({ kind: 'NotCompleted', completed, running, failing });
}
