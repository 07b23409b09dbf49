/**
 * Applying the forcefile to a node (`/run/machine-config-daemon-force`: the daemon skips its
 * on-disk validation once and writes its whole config again, docs/reference/daemon.md). The
 * Kubernetes API has no call for it (on OpenShift one runs `oc debug node/NAME -- chroot /host
 * touch /run/machine-config-daemon-force`), so it is written where the dashboard can reach the
 * node's disk: the box's node folders (src/adapters/node-folder-forcefile.ts). The dashboard asks
 * the API server first whether the user may patch that Node (a dry run with the user's token).
 */
import { err, type Result } from '../lib/result.js';

export interface NodeForcefile {
  /** Writes the forcefile on `node`; the path written, or why not. */
  touch(node: string): Promise<Result<string, string>>;
}

export const NoNodeForcefile: NodeForcefile = {
  touch: () =>
    Promise.resolve(
      err(
        "the dashboard cannot reach this node's disk; run `oc debug node/NAME -- chroot /host touch /run/machine-config-daemon-force`",
      ),
    ),
};
