/**
 * What performing the post-config actions does on the host, in order (upstream
 * performPostConfigChangeNodeDisruptionAction / performPostConfigChangeAction,
 * docs/reference/daemon.md §7.4 "Execution"). The daemon runs these steps through the Host; a
 * Reboot step ends the list.
 */
import type { PostConfigActions } from './drain-decision.js';
import { LegacyAction } from './legacy-post-config-action.js';
import { UpdateCaTrustService } from './node-disruption-policies.js';

export type PostConfigStep =
  /** Annotate `post-config-action=Rebooting`, then ask the Rebooter with this reason. */
  | { readonly kind: 'reboot'; readonly reason: string }
  /** Nothing to run: event SkipReboot ("Config changes do not require reboot."). */
  | { readonly kind: 'skipReboot' }
  /** Drain needs no step here (the drain happened before the update). */
  | { readonly kind: 'drained' }
  | { readonly kind: 'reload'; readonly unit: string }
  /**
   * `systemctl restart <unit>`; `updateCaTrustFallback`: if that fails, run `update-ca-trust`
   * instead (RHEL nodes have no coreos-update-ca-trust.service).
   */
  | { readonly kind: 'restart'; readonly unit: string; readonly updateCaTrustFallback: boolean }
  | { readonly kind: 'daemonReload' }
  /** Run the `update-ca-trust` command. */
  | { readonly kind: 'updateCaTrust' };

/** The reboot reason upstream passes to reboot(): also the systemd-run description's tail. */
function rebootReason(configName: string): string {
  return `Node will reboot into config ${configName}`;
}

const CrioService = 'crio';

function legacySteps(actions: readonly LegacyAction[], configName: string): PostConfigStep[] {
  if (actions.includes(LegacyAction.Reboot))
    return [{ kind: 'reboot', reason: rebootReason(configName) }];
  const steps: PostConfigStep[] = [];
  if (actions.includes(LegacyAction.None)) steps.push({ kind: 'skipReboot' });
  if (actions.includes(LegacyAction.ReloadCrio)) steps.push({ kind: 'reload', unit: CrioService });
  if (actions.includes(LegacyAction.RestartCrio))
    steps.push(
      { kind: 'updateCaTrust' },
      { kind: 'restart', unit: CrioService, updateCaTrustFallback: false },
    );
  return steps;
}

export function postConfigSteps(
  actions: PostConfigActions,
  configName: string,
): readonly PostConfigStep[] {
  if (actions.kind === 'legacy') return legacySteps(actions.actions, configName);
  if (actions.actions.some((a) => a.type === 'Reboot'))
    return [{ kind: 'reboot', reason: rebootReason(configName) }];
  return actions.actions.map((a): PostConfigStep => {
    switch (a.type) {
      case 'Reboot':
        return { kind: 'reboot', reason: rebootReason(configName) };
      case 'Drain':
        return { kind: 'drained' };
      case 'None':
        return { kind: 'skipReboot' };
      case 'Restart': {
        const unit = a.restart?.serviceName ?? '';
        return { kind: 'restart', unit, updateCaTrustFallback: unit === UpdateCaTrustService };
      }
      case 'Reload':
        return { kind: 'reload', unit: a.reload?.serviceName ?? '' };
      case 'Special':
        return { kind: 'reload', unit: CrioService };
      case 'DaemonReload':
        return { kind: 'daemonReload' };
    }
  });
}
