/**
 * An On-Cluster Layering build's log, for the dashboard (upstream shows the build pod's log). The
 * Kubernetes API has no object for it in the box: the build controller writes buildah's output to
 * `<build-dir>/logs/<machineosbuild>.log` (what `mco logs machineosbuild/NAME` prints), so the
 * source is that folder when the dashboard can see it (src/adapters/build-logs-folder.ts,
 * `mco dashboard --build-logs-dir`); elsewhere there is none and the page says so.
 */

export type BuildLogRead =
  /** The log's last `limit` bytes (all of it when `truncated` is false). */
  | { readonly kind: 'log'; readonly text: string; readonly truncated: boolean }
  /** No log for this build (not started yet, or written elsewhere). */
  | { readonly kind: 'absent'; readonly message: string }
  /** This dashboard cannot read build logs at all. */
  | { readonly kind: 'unavailable'; readonly message: string };

export interface BuildLogSource {
  /** `build` is a MachineOSBuild name the caller has already checked. */
  read(build: string, limit: number): Promise<BuildLogRead>;
}

export const NoBuildLogSource: BuildLogSource = {
  read: () =>
    Promise.resolve({
      kind: 'unavailable',
      message:
        'the dashboard cannot see the build logs; run `mco logs machineosbuild/NAME` where the build controller runs',
    }),
};
