/**
 * The kubelet's healthz endpoint as a simulated node serves it: the daemon's health monitor asks
 * `url`, which answers `ok` while the kubelet runs and fails while the node is down.
 */
export interface KubeletHealthEndpoint {
  readonly url: string;
  setHealthy(healthy: boolean): void;
}
