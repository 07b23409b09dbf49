/**
 * MachineConfiguration (upstream syncMachineConfiguration, docs/reference/node-disruption.md §2):
 * creates MachineConfiguration/cluster when it is missing (a server-side apply of
 * `spec.managementState: Managed`, field manager `machine-config-operator`), and writes its
 * status: the cluster's node disruption policies (defaults merged with the user's) and
 * `observedGeneration`, only when they differ, reading the object again and retrying on a
 * conflict. What to write is decided in logic/operator/machine-configuration-status.ts.
 *
 * Upstream reads Infrastructure/cluster first, for the boot-image fields of the same status; the
 * box has no Infrastructure kind and manages no boot images, so that read and those fields are
 * not here.
 */
import { isStatusError } from '../../api/meta/v1/status-error.js';
import {
  MachineConfigurationName,
  type MachineConfiguration,
} from '../../api/operator/v1/machine-configuration.js';
import { Resources } from '../../api/resource-refs.js';
import { OperatorTask } from '../../logic/operator/cluster-operator-status.js';
import {
  bootImageFailure,
  initialMachineConfiguration,
  nextMachineConfigurationStatus,
} from '../../logic/operator/machine-configuration-status.js';
import { liveGet } from '../../runtime/live-get.js';
import { Done, type OperatorStep, type RoundContext, type TaskOutcome } from '../operator-task.js';
import { errorText } from '../../lib/error-text.js';

const FieldManager = 'machine-config-operator';
const ConflictRetries = 5;

/** Writes the status if it differs; the object as stored afterwards. */
async function writeStatus(
  ctx: RoundContext,
  cached: MachineConfiguration,
): Promise<MachineConfiguration> {
  const { client, log } = ctx.deps;
  let mcop = cached;
  for (let attempt = 0; ; attempt++) {
    const status = nextMachineConfigurationStatus(mcop);
    if (status === undefined) return mcop;
    try {
      const written = await client.updateStatus<MachineConfiguration>(
        Resources.machineConfiguration,
        { ...mcop, status },
        { signal: ctx.signal },
      );
      log.info('updated MachineConfiguration status', {
        generation: written.metadata.generation,
        observedGeneration: written.status?.observedGeneration,
      });
      return written;
    } catch (e) {
      if (!isStatusError(e, 'Conflict') || attempt >= ConflictRetries) throw e;
      const live = await liveGet<MachineConfiguration>({
        client,
        ref: Resources.machineConfiguration,
        name: MachineConfigurationName,
        namespace: undefined,
        signal: ctx.signal,
      });
      if (live === undefined) throw e;
      mcop = live;
    }
  }
}

export const machineConfigurationStep: OperatorStep = {
  task: OperatorTask.MachineConfiguration,
  async run(ctx: RoundContext): Promise<TaskOutcome> {
    const { client, caches, log } = ctx.deps;
    const cached =
      caches.machineConfigurations.get(MachineConfigurationName) ??
      (await liveGet<MachineConfiguration>({
        client,
        ref: Resources.machineConfiguration,
        name: MachineConfigurationName,
        namespace: undefined,
        signal: ctx.signal,
      }));
    if (cached === undefined) {
      log.info("MachineConfiguration object doesn't exist; a new one will be created");
      await client.patch(
        Resources.machineConfiguration,
        MachineConfigurationName,
        initialMachineConfiguration(MachineConfigurationName),
        'apply',
        { fieldManager: FieldManager, signal: ctx.signal },
      );
      // its watch event starts the next round, which writes the status
      return Done;
    }
    let stored: MachineConfiguration;
    try {
      stored = await writeStatus(ctx, cached);
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      return {
        kind: 'Failed',
        message: `updating MachineConfiguration status: ${errorText(e)}`,
      };
    }
    const bootImage = bootImageFailure(stored);
    return bootImage === undefined ? Done : { kind: 'Failed', message: bootImage };
  },
};
