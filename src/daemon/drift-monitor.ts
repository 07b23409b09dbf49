/**
 * The config drift monitor (upstream config_drift_monitor.go, docs/reference/daemon.md §7.9): watches the
 * parent directories of every file, unit and dropin of the current config that exists, and on any
 * change to one of them validates files and units against the config. A mismatch is reported with
 * the raw validation text (`content mismatch for file "/etc/foo"`); a later clean check is
 * reported too, so the daemon can bring the node back to Done at once. It also reports the
 * forcefile appearing in /run, which is how an operator asks for a full re-apply, and one already
 * there when it starts (touched while no watch ran). The daemon stops the monitor during updates
 * and starts it after boot and after rebootless updates.
 */
import type { FileWatch, FileWatcher } from '../ports/file-watcher.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import type { IgnitionConfig } from '../ignition/types.js';
import { driftWatchPaths, describeOnDiskMismatch } from '../logic/nodeplan/on-disk-validation.js';
import { ForceFilePath } from '../logic/nodeplan/node-paths.js';
import { checkFilesAndUnits } from './on-disk-state.js';
import { errorText } from '../lib/error-text.js';

interface DriftHandlers {
  /** Validation failed: the raw mismatch text. */
  onDrift(message: string): void;
  /** Validation passed after a change (e.g. the file was restored). */
  onClean(): void;
  /** The forcefile appeared, or was there when the monitor started. */
  onForceFile(): void;
}

export interface DriftMonitorOptions {
  readonly host: Host;
  readonly watcher: FileWatcher;
  readonly log: Logger;
  readonly handlers: DriftHandlers;
  /** Coalesces a burst of events into one check. */
  readonly debounceMs?: number;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export class DriftMonitor {
  readonly #o: DriftMonitorOptions;
  #watch: FileWatch | undefined;
  #config: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #checking: Promise<void> | undefined;
  #again = false;
  #generation = 0;

  constructor(options: DriftMonitorOptions) {
    this.#o = options;
  }

  get running(): boolean {
    return this.#watch !== undefined;
  }

  /** The config being watched (undefined when stopped). */
  get config(): string | undefined {
    return this.#config;
  }

  async start(configName: string, ign: IgnitionConfig): Promise<void> {
    this.stop();
    const generation = ++this.#generation;
    const { host, log } = this.#o;
    const existing = new Set<string>();
    const candidates = driftWatchPaths(ign, () => true).paths;
    for (const p of candidates) if ((await host.files.stat(p)) !== undefined) existing.add(p);
    if (generation !== this.#generation) return;
    const watched = driftWatchPaths(ign, (p) => existing.has(p));
    const byHostDir = new Map<string, string>();
    for (const dir of [...watched.directories, parentOf(ForceFilePath)])
      byHostDir.set(host.files.hostPath(dir), dir);
    const paths = new Set(watched.paths);
    const forceName = ForceFilePath.slice(ForceFilePath.lastIndexOf('/') + 1);
    this.#config = configName;
    this.#watch = this.#o.watcher.watch(
      [...byHostDir.keys()],
      (hostDir, name) => {
        const dir = byHostDir.get(hostDir);
        if (dir === undefined) return;
        const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
        log.debug('drift monitor event', { path });
        if (path === ForceFilePath || (name === forceName && dir === parentOf(ForceFilePath))) {
          this.#o.handlers.onForceFile();
          return;
        }
        if (name === '' || paths.has(path)) this.#schedule(ign);
      },
      (hostDir, e) => {
        log.warn('cannot watch a directory for config drift', {
          directory: byHostDir.get(hostDir),
          error: errorText(e),
        });
      },
    );
    // a change between the last validation and this watch would otherwise go unseen
    this.#schedule(ign);
    // so would a forcefile touched while no watch ran (during an update, before this start)
    if ((await host.files.stat(ForceFilePath)) !== undefined && generation === this.#generation)
      this.#o.handlers.onForceFile();
    log.info('config drift monitor started', {
      config: configName,
      paths: watched.paths.length,
      directories: watched.directories,
    });
  }

  stop(): void {
    this.#generation++;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#watch !== undefined) {
      this.#watch.close();
      this.#o.log.info('config drift monitor stopped', { config: this.#config });
    }
    this.#watch = undefined;
    this.#config = undefined;
  }

  #schedule(ign: IgnitionConfig): void {
    if (this.#timer !== undefined) return;
    const generation = this.#generation;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (generation === this.#generation) this.#run(ign, generation);
    }, this.#o.debounceMs ?? 50);
  }

  #run(ign: IgnitionConfig, generation: number): void {
    if (this.#checking !== undefined) {
      this.#again = true;
      return;
    }
    this.#checking = this.check(ign, generation).finally(() => {
      this.#checking = undefined;
      if (this.#again && generation === this.#generation) {
        this.#again = false;
        this.#run(ign, generation);
      }
    });
  }

  /** One validation of files and units; reports drift or a clean state. */
  async check(ign: IgnitionConfig, generation = this.#generation): Promise<void> {
    try {
      const r = await checkFilesAndUnits(this.#o.host, ign);
      if (generation !== this.#generation) return;
      if (r.ok) this.#o.handlers.onClean();
      else this.#o.handlers.onDrift(describeOnDiskMismatch(r.error));
    } catch (e) {
      this.#o.log.warn('config drift check failed', { error: errorText(e) });
    }
  }
}
