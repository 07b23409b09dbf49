/**
 * What `mco operator` is configured with (parsed from flags by cli/, passed down): its versions,
 * where the machine config server is, and the timings of its waits.
 */
import type { ClusterFacts } from '../logic/operator/controller-config.js';
import type { OperatorVersions } from '../logic/operator/cluster-operator-status.js';
import { RequiredPoolsTimeoutPerMachineMs } from '../logic/operator/required-pools.js';

export interface OperatorTimings {
  /** How often a waiting round looks again (upstream polls every 1 s). */
  readonly pollMs: number;
  /** How long ControllerConfig may take to complete (upstream: 5 min). */
  readonly controllerConfigTimeoutMs: number;
  /** Required-pools timeout per required machine (upstream: 10 min). */
  readonly requiredPoolsPerMachineMs: number;
}

export const UpstreamOperatorTimings: OperatorTimings = {
  pollMs: 1000,
  controllerConfigTimeoutMs: 5 * 60 * 1000,
  requiredPoolsPerMachineMs: RequiredPoolsTimeoutPerMachineMs,
};

interface MachineConfigServerEndpoint {
  /** Base URL written into the pointer configs, e.g. `https://api-int.example.com:22623`. */
  readonly url: string;
  /** PEM of the CA that signed the server's certificate. */
  readonly caBundle: Uint8Array;
  /** Sent by new machines as a bearer token, when the server requires one. */
  readonly token?: string;
}

export interface OperatorConfig {
  /** The ClusterOperator's versions: the release and the operator image. */
  readonly versions: OperatorVersions;
  /** The operator build, upstream `version.Raw` (ControllerConfig `generated-by-version`). */
  readonly operatorVersion: string;
  /** The controller build, upstream `version.Hash` (rendered configs' controller version). */
  readonly controllerVersion: string;
  /** The MCO namespace (`openshift-machine-config-operator`). */
  readonly namespace: string;
  readonly machineConfigServer: MachineConfigServerEndpoint;
  /** Base64 PEM the kubelet trusts the API server's clients with (ControllerConfig). */
  readonly kubeAPIServerServingCAData: string;
  readonly cluster?: Partial<ClusterFacts>;
  readonly timings: OperatorTimings;
}
