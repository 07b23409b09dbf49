/**
 * RenderConfig (upstream syncRenderConfig, the part we model): read the OS images of this release
 * from the `machine-config-osimageurl` ConfigMap, refusing data written for another release.
 */
import { OperatorTask } from '../../logic/operator/cluster-operator-status.js';
import {
  describeOsImageUrlError,
  OsImageUrlConfigMapName,
  readOsImageUrls,
} from '../../logic/operator/os-image-urls.js';
import { Done, type OperatorStep, type RoundContext, type TaskOutcome } from '../operator-task.js';

export const renderConfigStep: OperatorStep = {
  task: OperatorTask.RenderConfig,
  run(ctx: RoundContext): Promise<TaskOutcome> {
    const { caches, config } = ctx.deps;
    const cm = caches.configMaps.get(`${config.namespace}/${OsImageUrlConfigMapName}`);
    const images = readOsImageUrls(cm, config.versions.operator);
    if (!images.ok)
      return Promise.resolve({ kind: 'Failed', message: describeOsImageUrlError(images.error) });
    ctx.osImages = images.value;
    return Promise.resolve(Done);
  },
};
