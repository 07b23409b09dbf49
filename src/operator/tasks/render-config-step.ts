/**
 * RenderConfig (upstream syncRenderConfig, the part we model): read the OS images of this release
 * from the `machine-config-osimageurl` ConfigMap, refusing data written for another release, and
 * what the cluster's Infrastructure, Network, DNS and Proxy `cluster` say for the ControllerConfig
 * (a Network it cannot read fails the step with upstream's error).
 */
import { discoveredSpec } from '../../logic/operator/discovered-cluster-config.js';
import { OperatorTask } from '../../logic/operator/cluster-operator-status.js';
import {
  describeOsImageUrlError,
  OsImageUrlConfigMapName,
  readOsImageUrls,
} from '../../logic/operator/os-image-urls.js';
import { Done, type OperatorStep, type RoundContext, type TaskOutcome } from '../operator-task.js';

/** The singletons' name. */
const ClusterConfigName = 'cluster';

export const renderConfigStep: OperatorStep = {
  task: OperatorTask.RenderConfig,
  run(ctx: RoundContext): Promise<TaskOutcome> {
    const { caches, config } = ctx.deps;
    const cm = caches.configMaps.get(`${config.namespace}/${OsImageUrlConfigMapName}`);
    const images = readOsImageUrls(cm, config.versions.operator);
    if (!images.ok)
      return Promise.resolve({ kind: 'Failed', message: describeOsImageUrlError(images.error) });
    const discovered = discoveredSpec({
      infrastructure: caches.infrastructures.get(ClusterConfigName),
      network: caches.networks.get(ClusterConfigName),
      proxy: caches.proxies.get(ClusterConfigName),
      dns: caches.dnses.get(ClusterConfigName),
    });
    if (!discovered.ok) return Promise.resolve({ kind: 'Failed', message: discovered.error });
    ctx.osImages = images.value;
    ctx.discovered = discovered.value;
    return Promise.resolve(Done);
  },
};
