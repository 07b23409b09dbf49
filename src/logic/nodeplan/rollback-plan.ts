/**
 * What puts a node back on its old config after an update failed or was abandoned (upstream's
 * deferred rollbacks, docs/reference/daemon.md §7.2 step 13): the units the update changed,
 * written again as the old config has them; the old config's version of every file the update
 * changed; and the units only the new config named, whose enablement goes back to what the
 * journal recorded. The prior state of paths only the new config manages comes from the journal.
 */
import { err, ok, type Result } from '../../lib/result.js';
import { addedOrChangedUnits, changedFilePaths, changedUnits } from './config-diffs.js';
import { planFileWrites, type FileWriteError, type PlannedFile } from './file-writes.js';
import type { NodeConfig } from './node-config.js';
import { planUnits, type PlannedUnit } from './unit-writes.js';

export interface RollbackPlan {
  readonly units: readonly PlannedUnit[];
  readonly files: readonly PlannedFile[];
  /** Units only the new config names: their enablement is restored from the journal. */
  readonly newUnits: readonly string[];
}

export function planRollback(
  from: NodeConfig,
  to: NodeConfig,
  options: { readonly firstBoot: boolean },
): Result<RollbackPlan, FileWriteError> {
  const changed = new Set(changedFilePaths(from.ignition, to.ignition));
  const files = planFileWrites(
    {
      ...from.ignition,
      storage: {
        ...from.ignition.storage,
        files: (from.ignition.storage?.files ?? []).filter((f) => changed.has(f.path)),
      },
    },
    { skipCertificateWrite: !options.firstBoot },
  );
  if (!files.ok) return err(files.error);
  const fromUnits = new Set((from.ignition.systemd?.units ?? []).map((u) => u.name));
  return ok({
    units: planUnits(addedOrChangedUnits(changedUnits(to.ignition, from.ignition))),
    files: files.value,
    newUnits: (to.ignition.systemd?.units ?? [])
      .map((u) => u.name)
      .filter((n) => !fromUnits.has(n)),
  });
}
