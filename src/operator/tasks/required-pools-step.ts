/**
 * RequiredPools (upstream syncRequiredMachineConfigPools): the last step, which holds the round
 * until the required pools (master) are Updated at this release. Upstream polls every second for
 * up to 10 minutes per required machine, publishing the last error on each pass; we return after
 * each pass and keep the deadline between rounds.
 */
import { OperatorTask } from '../../logic/operator/cluster-operator-status.js';
import {
  checkRequiredPools,
  describeRequiredPoolsTimeout,
  requiredPoolsTimeoutMs,
} from '../../logic/operator/required-pools.js';
import { Done, type OperatorStep, type RoundContext, type TaskOutcome } from '../operator-task.js';

export class RequiredPoolsStep implements OperatorStep {
  readonly task = OperatorTask.RequiredPools;
  #wait: { readonly since: number; readonly timeoutMs: number } | undefined;

  run(ctx: RoundContext): Promise<TaskOutcome> {
    return Promise.resolve(this.#pass(ctx));
  }

  #pass(ctx: RoundContext): TaskOutcome {
    const { caches, config, clock } = ctx.deps;
    const osImages = ctx.osImages;
    if (osImages === undefined) throw new Error('RenderConfig has not run');
    const pools = caches.pools.list();
    const now = clock.now();
    if (this.#wait === undefined) {
      const timeoutMs = requiredPoolsTimeoutMs(pools, config.timings.requiredPoolsPerMachineMs);
      this.#wait = { since: now, timeoutMs };
    }
    const outcome = checkRequiredPools({
      pools,
      machineConfig: (name) => caches.machineConfigs.get(name),
      controllerVersion: config.controllerVersion,
      releaseVersion: config.versions.operator,
      osImageURL: osImages.baseOSContainerImage,
    });
    if (outcome.kind !== 'Waiting') {
      this.#wait = undefined;
      return outcome.kind === 'Ready' ? Done : { kind: 'Failed', message: outcome.error };
    }
    const left = this.#wait.since + this.#wait.timeoutMs - now;
    if (left <= 0) {
      this.#wait = undefined;
      return { kind: 'Failed', message: describeRequiredPoolsTimeout(outcome.error) };
    }
    return {
      kind: 'Pending',
      requeueAfterMs: Math.min(config.timings.pollMs, left),
      report: outcome.error,
    };
  }
}
