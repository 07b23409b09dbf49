/**
 * The post-config actions of a committed update (upstream performPostConfigChange*,
 * docs/reference/node-disruption.md §6): a reboot (the marker in /run, the journal,
 * `post-config-action=Rebooting`, the Rebooter), or each service action through systemd, in the
 * order the plan gives (postConfigSteps), with upstream's events and MachineConfigNode
 * conditions. The steps come from the actions the journal recorded at `committed`, so a resumed
 * update runs exactly what was planned. Idempotent: running them again does the same.
 */
import { MachineConfigNodeConditionType as T } from '../api/machineconfiguration/v1/constants.js';
import type { PostConfigActions } from '../logic/nodeplan/drain-decision.js';
import { postConfigSteps, type PostConfigStep } from '../logic/nodeplan/post-config-steps.js';
import { DaemonError } from './daemon-errors.js';
import { RebootMarkerPath } from './daemon-paths.js';
import type { UpdateDeps, UpdateResult } from './update-deps.js';
import { JournalPhase, type UpdateJournal } from './update-journal.js';
import { errorText } from '../lib/error-text.js';

type Step<K extends PostConfigStep['kind']> = Extract<PostConfigStep, { kind: K }>;

/** A journal without recorded actions predates them: a reboot is the safe reading. */
const RebootOnly: PostConfigActions = { kind: 'policies', actions: [{ type: 'Reboot' }] };

export class PostConfigActionRunner {
  readonly #d: UpdateDeps;
  /** What ran, for the summary log line. */
  #touched: string[] = [];

  constructor(deps: UpdateDeps) {
    this.#d = deps;
  }

  async run(journal: UpdateJournal): Promise<UpdateResult> {
    const { log, crash } = this.#d;
    const actions = journal.actions ?? RebootOnly;
    const steps = postConfigSteps(actions, journal.to);
    const reboot = steps.find((s): s is Step<'reboot'> => s.kind === 'reboot');
    if (reboot !== undefined) return this.#reboot(journal, reboot);
    this.#touched = [];
    for (const step of steps) {
      crash.reached('post-config-step');
      await this.#runStep(step, actions.kind);
    }
    if (this.#touched.length > 0) log.info('post-config actions ran', { services: this.#touched });
    crash.reached('post-config-done');
    return { kind: 'rebootless' };
  }

  async #reboot(journal: UpdateJournal, step: Step<'reboot'>): Promise<UpdateResult> {
    const { host, log, cluster, crash, metrics } = this.#d;
    await host.files.writeAtomic(RebootMarkerPath, new TextEncoder().encode(`${journal.to}\n`), {
      mode: 0o644,
    });
    await this.#d.journal.write({ ...journal, phase: JournalPhase.Rebooting });
    crash.reached('reboot-marked');
    await cluster?.condition({
      type: T.RebootedNode,
      status: 'Unknown',
      reason: T.RebootedNode,
      message: 'Upgrade requires a reboot.',
    });
    await cluster?.setPostConfigAction('Rebooting');
    crash.reached('post-config-action');
    log.info('Rebooting node', { reason: step.reason });
    try {
      await host.rebooter.reboot(step.reason);
    } catch (e) {
      metrics.rebootFailed();
      throw DaemonError.degraded(`reboot failed: ${errorText(e)}`, e);
    }
    crash.reached('reboot-requested');
    return { kind: 'rebooting' };
  }

  async #runStep(step: PostConfigStep, kind: PostConfigActions['kind']): Promise<void> {
    switch (step.kind) {
      case 'reboot':
      case 'drained':
        return;
      case 'skipReboot':
        await this.#d.events.emit('Normal', 'SkipReboot', 'Config changes do not require reboot.');
        await this.#d.cluster?.condition({
          type: T.UpdatePostActionComplete,
          status: 'True',
          reason: 'None',
          message: 'Changes do not require a reboot',
        });
        return;
      case 'reload':
        await this.#reload(step.unit, kind);
        return;
      case 'daemonReload':
        await this.#daemonReload(kind);
        return;
      case 'restart':
        await this.#restart(step);
        return;
      case 'updateCaTrust':
        await this.#updateCaTrust();
        return;
    }
  }

  async #reload(unit: string, kind: PostConfigActions['kind']): Promise<void> {
    try {
      await this.#d.host.systemd.reload(unit);
    } catch (e) {
      await this.#d.events.emit(
        'Warning',
        'FailedServiceReload',
        `Reloading service ${unit} failed. Error: ${errorText(e)}`,
      );
      throw DaemonError.degraded(
        `could not apply update: reloading ${unit} configuration failed. Error: ${errorText(e)}`,
      );
    }
    await this.#reloaded(unit, kind);
  }

  async #daemonReload(kind: PostConfigActions['kind']): Promise<void> {
    try {
      await this.#d.host.systemd.daemonReload();
    } catch (e) {
      throw DaemonError.degraded(
        `could not apply update: reloading daemon-reload configuration failed. Error: ${errorText(e)}`,
      );
    }
    await this.#reloaded('daemon-reload', kind);
  }

  async #reloaded(service: string, kind: PostConfigActions['kind']): Promise<void> {
    await this.#d.cluster?.condition({
      type: T.UpdatePostActionComplete,
      status: 'True',
      reason: T.UpdatePostActionComplete,
      message: `Node has reloaded service ${service}`,
    });
    await this.#d.events.emit(
      'Normal',
      kind === 'legacy' ? 'SkipReboot' : 'ServiceReload',
      `Config changes do not require reboot. Service ${service} was reloaded.`,
    );
    this.#touched.push(`reload ${service}`);
  }

  async #restart(step: Step<'restart'>): Promise<void> {
    const { host, events, log } = this.#d;
    try {
      await host.systemd.restart(step.unit);
    } catch (e) {
      if (step.updateCaTrustFallback && host.updateCaTrust !== undefined) {
        // RHEL nodes have no coreos-update-ca-trust.service: run the command instead
        log.info(`Error executing ${step.unit} unit, falling back to command`);
        await this.#updateCaTrust();
        return;
      }
      await events.emit(
        'Warning',
        'FailedServiceRestart',
        `Restarting ${step.unit} service failed. Error: ${errorText(e)}`,
      );
      throw DaemonError.degraded(
        `could not apply update: restarting ${step.unit} service failed. Error: ${errorText(e)}`,
      );
    }
    await events.emit(
      'Normal',
      'ServiceRestart',
      `Config changes do not require reboot. Service ${step.unit} was restarted.`,
    );
    this.#touched.push(`restart ${step.unit}`);
  }

  async #updateCaTrust(): Promise<void> {
    const host = this.#d.host;
    if (host.updateCaTrust === undefined) {
      this.#d.log.warn('update-ca-trust is not available on this host; skipped');
      return;
    }
    try {
      await host.updateCaTrust();
    } catch (e) {
      // the host's text is upstream's: `error running update-ca-trust: <stderr>: <err>`
      throw DaemonError.degraded(errorText(e), e);
    }
    this.#touched.push('update-ca-trust');
  }
}
