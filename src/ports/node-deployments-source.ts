/**
 * A node's OS deployments, for the dashboard's node detail: the BLS entries in boot order (the
 * first is the default, the next the rollback, as `rpm-ostree status` lists them), which one is
 * booted, and what is staged for the next boot, each with its version, origin and kernel arguments.
 *
 * The Kubernetes API has no object for this (on OpenShift one reads `rpm-ostree status` on the
 * node), so the source is where the dashboard can see the node's disk: in the cluster in a box the
 * node folders (src/adapters/node-folder-deployments.ts, `mco dashboard --nodes-dir`, the folders
 * the API server serves the daemon pods' logs from); elsewhere there is none and the page says so.
 */
import { err, type Result } from '../lib/result.js';

export interface DeploymentView {
  /** `<checksum>.<serial>`. */
  readonly deployment: string;
  /** `default` (the next boot), `rollback`, or a later index. */
  readonly role: string;
  readonly booted: boolean;
  readonly version: string;
  readonly origin: string;
  readonly kernelArguments: readonly string[];
}

export interface NodeDeployments {
  readonly deployments: readonly DeploymentView[];
  /** Staged for the next reboot, if any. */
  readonly staged?: {
    readonly checksum: string;
    readonly version: string;
    readonly image: string;
    readonly kernelArguments: readonly string[];
  };
}

export interface NodeDeploymentsSource {
  read(node: string): Promise<Result<NodeDeployments, string>>;
}

/** No source: the page says where to look instead. */
export const NoDeploymentsSource: NodeDeploymentsSource = {
  read: () =>
    Promise.resolve(
      err(
        "the dashboard cannot see this node's disk; run `rpm-ostree status` on the node (oc debug node/NAME)",
      ),
    ),
};
