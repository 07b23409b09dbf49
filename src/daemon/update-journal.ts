/**
 * The update journal (`/etc/machine-config-daemon/update-journal.json`): the intent of the update
 * in progress, written atomically before each step acts, so that a daemon killed at any point
 * knows on restart what it was doing and ends on the old config or the new one, never a mix
 * (docs/daemon.md "Daemon process"). Beside it, `update-journal.d/` holds both configs and a copy
 * of every path the update writes that the old config does not manage, so a rollback restores
 * exactly what was there.
 *
 * Phases, in order: prepare (capturing the prior state; nothing of the update on disk yet) →
 * files → users → os → commit (writing currentconfig) → committed (the new config is current;
 * post-config actions remain) → rebooting. A failure before `committed` rolls back
 * (`rolling-back`), and the journal is removed when the node is Done or back on the old config.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { NodeFiles } from '../ports/host.js';
import type { PostConfigActions } from '../logic/nodeplan/drain-decision.js';
import {
  JournalDir,
  JournalFromConfigPath,
  JournalPath,
  JournalToConfigPath,
} from './daemon-paths.js';
import { errorText } from '../lib/error-text.js';
import type { DaemonUpdateRecord } from '../api/machineconfiguration/v1/update-audit.js';
import { actionWords } from '../logic/nodeplan/plan-summary.js';

export const JournalPhase = {
  Prepare: 'prepare',
  Files: 'files',
  Users: 'users',
  Os: 'os',
  Commit: 'commit',
  Committed: 'committed',
  Rebooting: 'rebooting',
  RollingBack: 'rolling-back',
} as const;
export type JournalPhase = (typeof JournalPhase)[keyof typeof JournalPhase];

/** Whether the new config is already current (currentconfig written, actions may remain). */
export function isCommitted(phase: JournalPhase): boolean {
  return phase === JournalPhase.Committed || phase === JournalPhase.Rebooting;
}

/** What was at a path before the update wrote it (paths the old config does not manage). */
export interface PriorPath {
  readonly path: string;
  /** absent: nothing; copied: kept under update-journal.d/prior; symlink: a link to linkTarget. */
  readonly state: 'absent' | 'copied' | 'symlink' | 'directory';
  readonly linkTarget?: string;
  /** Whether `.mcdorig` / `.mcdnoorig` bookkeeping for the path existed before. */
  readonly orig: boolean;
  readonly noorig: boolean;
}

export interface PriorState {
  readonly files: readonly PriorPath[];
  /** /etc/shadow hashes of every user either config names. */
  readonly passwords: Readonly<Record<string, string>>;
  /** `systemctl is-enabled` of units only the new config names. */
  readonly unitEnablement: Readonly<Record<string, string>>;
  /** Whether /etc/machine-config-daemon/currentconfig existed (else rollback removes it). */
  readonly hadCurrentConfig: boolean;
  /** Folders the update may create that did not exist, deepest first (removed if left empty). */
  readonly createdDirs?: readonly string[];
}

export interface UpdateJournal {
  readonly version: 1;
  readonly from: string;
  readonly to: string;
  readonly phase: JournalPhase;
  /** The forcefile existed when the update started (it is removed once this is recorded). */
  readonly force: boolean;
  /** Legacy actions, no drain, no cluster (first boot and --once-from). */
  readonly firstBoot: boolean;
  readonly startedAt: string;
  readonly prior?: PriorState;
  /** The post-config actions, recorded at `committed`. */
  readonly actions?: PostConfigActions;
  /** The update drains the node (cordon and evict) before it writes anything. */
  readonly drain?: boolean;
  /** Why a rollback runs. */
  readonly error?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function parseJson(bytes: Uint8Array | undefined, what: string): unknown {
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch (e) {
    throw new Error(`${what} is not valid JSON: ${errorText(e)}`, {
      cause: e,
    });
  }
}

export class JournalStore {
  readonly #files: NodeFiles;

  constructor(files: NodeFiles) {
    this.#files = files;
  }

  async read(): Promise<UpdateJournal | undefined> {
    return parseJson(await this.#files.read(JournalPath), JournalPath) as UpdateJournal | undefined;
  }

  async write(journal: UpdateJournal): Promise<void> {
    await this.#files.writeAtomic(JournalPath, encoder.encode(`${JSON.stringify(journal)}\n`), {
      mode: 0o600,
    });
  }

  /** Starts a journal directory from scratch (a leftover one is dropped). */
  async reset(): Promise<void> {
    await this.#files.removeTree(JournalDir);
  }

  async writeConfigs(from: MachineConfig, to: MachineConfig): Promise<void> {
    const opts = { mode: 0o600 };
    await this.#files.writeAtomic(
      JournalFromConfigPath,
      encoder.encode(JSON.stringify(from)),
      opts,
    );
    await this.#files.writeAtomic(JournalToConfigPath, encoder.encode(JSON.stringify(to)), opts);
  }

  async readConfigs(): Promise<{ from: MachineConfig; to: MachineConfig } | undefined> {
    const from = parseJson(await this.#files.read(JournalFromConfigPath), JournalFromConfigPath) as
      MachineConfig | undefined;
    const to = parseJson(await this.#files.read(JournalToConfigPath), JournalToConfigPath) as
      MachineConfig | undefined;
    return from === undefined || to === undefined ? undefined : { from, to };
  }

  /** No update in progress: the journal goes first (that is the commit), then its side files. */
  async clear(): Promise<void> {
    await this.#files.remove(JournalPath);
    await this.#files.removeTree(JournalDir);
  }
}

/**
 * What a committed update did, for the update audit: from the journal of the update that brought
 * the node to `current`, as the daemon reports Done (undefined for any other journal).
 */
export function updateRecord(
  journal: UpdateJournal | undefined,
  current: string,
  nowMs: number,
): DaemonUpdateRecord | undefined {
  if (journal === undefined || journal.to !== current || !isCommitted(journal.phase))
    return undefined;
  return {
    from: journal.from,
    to: journal.to,
    startedAt: journal.startedAt,
    doneAt: new Date(nowMs).toISOString(),
    actions: journal.actions === undefined ? [] : actionWords(journal.actions),
    drained: journal.drain ?? false,
    rebooted: journal.phase === JournalPhase.Rebooting,
  };
}
