/**
 * `mco daemon --once-from FILE` (upstream's "bring your own host" mode, and the first-boot step
 * of docs/reference/firstboot.md §8): applies a MachineConfig or a bare Ignition config to the host once,
 * without a cluster, with the same update code as the daemon — the legacy post-config action
 * table (no node disruption policies, no drain), the same journal, rollback and reboot rules.
 *
 * The old config is the on-disk currentconfig; a host without one starts from upstream's empty
 * config whose OS image is the booted one and whose kernel arguments are those of the target
 * already on the running command line (canonicalizeEmptyMC + setRunningKargs). The node's
 * encapsulated first-boot config is renamed to `.bak` once applied (deleted when nothing changes).
 */
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { Clock } from '../ports/clock.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import { runningKernelArguments } from '../logic/nodeplan/kernel-arguments.js';
import { isEmptyDiff } from '../logic/nodeplan/machine-config-diff.js';
import {
  EmptyMachineConfigName,
  emptyIgnition,
  parseNodeConfig,
} from '../logic/nodeplan/node-config.js';
import { describeOnDiskValidationFailure } from '../logic/nodeplan/on-disk-validation.js';
import { noCrashPoints, type CrashPoints } from './crash-points.js';
import { readCurrentConfig } from './current-config.js';
import { DaemonError } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from '../ports/daemon-metrics.js';
import {
  EncapsulatedConfigBakPath,
  EncapsulatedConfigPath,
  RebootMarkerPath,
} from './daemon-paths.js';
import { checkOnDiskState } from './on-disk-state.js';
import { isCommitted, JournalPhase } from './update-journal.js';
import { Updater } from './updater.js';
import { errorText } from '../lib/error-text.js';

export type OnceFromResult =
  /** The host asked for a reboot into the config. */
  | 'rebooting'
  /** Applied without a reboot. */
  | 'applied'
  /** The host already had it. */
  | 'unchanged';

export interface OnceFromOptions {
  readonly host: Host;
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: DaemonEvents;
  readonly metrics: DaemonMetrics;
  readonly crash?: CrashPoints;
  /** The file's text: a MachineConfig (JSON or YAML) or an Ignition config. */
  readonly content: string;
  /** Where it came from, for messages and the name of a bare Ignition config. */
  readonly source: string;
  /** The file is the node's encapsulated first-boot config. */
  readonly encapsulated: boolean;
  readonly stopRequested?: () => boolean;
  readonly onJournaled?: (active: boolean) => void;
}

type OnceFromInput =
  | { readonly kind: 'machineConfig'; readonly mc: MachineConfig }
  | { readonly kind: 'ignition'; readonly config: Record<string, unknown>; readonly name: string };

/** What the file holds: a MachineConfig (has `spec` or kind MachineConfig) or Ignition. */
function parseOnceFromFile(content: string, source: string): OnceFromInput {
  let doc: unknown;
  try {
    doc = parseYaml(content);
  } catch (e) {
    throw DaemonError.degraded(`${source}: neither JSON nor YAML: ${errorText(e)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw DaemonError.degraded(`${source}: expected a MachineConfig or an Ignition config object`);
  const obj = doc as Record<string, unknown>;
  if (obj['kind'] === 'MachineConfig' || typeof obj['spec'] === 'object') {
    const mc = obj as unknown as MachineConfig;
    return {
      kind: 'machineConfig',
      mc: { ...mc, metadata: { ...mc.metadata, name: mc.metadata.name ?? 'once-from' } },
    };
  }
  if (typeof obj['ignition'] === 'object') {
    const digest = createHash('sha256').update(content).digest('hex').slice(0, 12);
    return { kind: 'ignition', config: obj, name: `once-from-${digest}` };
  }
  throw DaemonError.degraded(
    `${source}: expected a MachineConfig or an Ignition config (no "spec" and no "ignition")`,
  );
}

/**
 * The node as it is, as a config that manages nothing: the booted image and running kernel
 * arguments, no files, units or users. The starting point of a config applied to a node the
 * daemon never managed (--once-from without a currentconfig, adoption by update).
 */
export async function emptyOld(host: Host, target: MachineConfig): Promise<MachineConfig> {
  const booted = (await host.os.status()).booted;
  const requested = target.spec?.kernelArguments ?? [];
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name: EmptyMachineConfigName },
    spec: {
      config: emptyIgnition() as unknown as Record<string, unknown>,
      osImageURL: booted.image ?? target.spec?.osImageURL ?? '',
      kernelArguments: [...runningKernelArguments(requested, booted.kernelArguments.join(' '))],
      fips: await host.fipsEnabled(),
    },
  };
}

export async function runOnceFrom(options: OnceFromOptions): Promise<OnceFromResult> {
  const { host, log } = options;
  const updater = new Updater({
    host,
    log,
    clock: options.clock,
    events: options.events,
    metrics: options.metrics,
    crash: options.crash ?? noCrashPoints,
    nodeName: '',
    stopRequested: options.stopRequested ?? (() => false),
    ...(options.onJournaled === undefined ? {} : { onJournaled: options.onJournaled }),
  });
  const input = parseOnceFromFile(options.content, options.source);
  const onDisk = await readCurrentConfig(host.files);
  const target: MachineConfig =
    input.kind === 'machineConfig'
      ? input.mc
      : {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfig',
          metadata: { name: input.name },
          spec: {
            config: input.config,
            osImageURL: onDisk?.spec?.osImageURL ?? (await host.os.status()).booted.image ?? '',
            kernelArguments: onDisk?.spec?.kernelArguments ?? [],
          },
        };
  const targetName = target.metadata.name ?? '';

  const settled = await settleJournal(updater, host, log, targetName);
  if (settled !== undefined) return finish(options, settled);

  const old = (await readCurrentConfig(host.files)) ?? (await emptyOld(host, target));
  const plan = await updater.plan(old, target, { firstBoot: true });
  if (isEmptyDiff(plan.diff)) {
    log.info('No changes', { from: old.metadata.name, to: targetName });
    // upstream's first boot deletes the encapsulated config when there is nothing to do
    if (options.encapsulated) await host.files.remove(EncapsulatedConfigPath);
    return 'unchanged';
  }
  log.info('applying once', { from: old.metadata.name, to: targetName, source: options.source });
  const result = await updater.apply(plan, { fromMc: old, toMc: target }, undefined);
  if (result.kind === 'rebootless') await updater.journal.clear();
  return finish(options, result.kind === 'rebooting' ? 'rebooting' : 'applied');
}

async function finish(options: OnceFromOptions, result: OnceFromResult): Promise<OnceFromResult> {
  if (options.encapsulated) {
    const files = options.host.files;
    if ((await files.stat(EncapsulatedConfigPath)) !== undefined) {
      await files.copy(EncapsulatedConfigPath, EncapsulatedConfigBakPath);
      await files.remove(EncapsulatedConfigPath);
    }
  }
  return result;
}

/** An interrupted earlier run: finish it; a result when that is all there is to do. */
async function settleJournal(
  updater: Updater,
  host: Host,
  log: Logger,
  targetName: string,
): Promise<OnceFromResult | undefined> {
  const journal = await updater.journal.read();
  if (journal === undefined) return undefined;
  await updater.sweepAfterCrash();
  if (journal.phase === JournalPhase.Rebooting) {
    if ((await host.files.stat(RebootMarkerPath)) !== undefined) {
      log.info('the requested reboot has not happened; requesting it again', {
        config: journal.to,
      });
      await updater.runPostConfigActions(journal);
      return 'rebooting';
    }
    const configs = await updater.journal.readConfigs();
    if (configs !== undefined) {
      const parsed = parseNodeConfig(configs.to, 'new');
      if (parsed.ok) {
        const r = await checkOnDiskState(host, parsed.value);
        if (!r.ok) throw DaemonError.degraded(describeOnDiskValidationFailure(journal.to, r.error));
      }
    }
    log.info('rebooted into the config', { config: journal.to });
    await updater.journal.clear();
    return undefined;
  }
  if (isCommitted(journal.phase)) {
    const result = await updater.runPostConfigActions(journal);
    if (result.kind === 'rebooting') return 'rebooting';
    await updater.journal.clear();
    return undefined;
  }
  const configs = await updater.journal.readConfigs();
  if (
    configs !== undefined &&
    journal.phase !== JournalPhase.RollingBack &&
    journal.to === targetName
  ) {
    log.info('resuming an interrupted update', {
      from: journal.from,
      to: journal.to,
      phase: journal.phase,
    });
    const result = await updater.update(configs.from, configs.to, {
      firstBoot: true,
      resume: journal,
    });
    if (result.kind === 'rebootless') {
      await updater.journal.clear();
      return 'applied';
    }
    return 'rebooting';
  }
  await updater.abandon(journal, journal.error ?? `abandoned for ${targetName}`);
  return undefined;
}
