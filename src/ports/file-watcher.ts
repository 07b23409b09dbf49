/**
 * FileWatcher: change notifications for directories on the machine running the daemon (the
 * config drift monitor, docs/reference/daemon.md §7.9). A directory is watched rather than each file,
 * because an atomic write replaces the file (rename over it) and a watch on the old inode would
 * go quiet. Paths are host paths (NodeFiles.hostPath), not node paths.
 */

export interface FileWatch {
  /** Stops every watch; no callback runs afterwards. */
  close(): void;
}

export interface FileWatcher {
  /**
   * Watches each directory (not recursively) and calls `onChange(directory, name)` for every
   * entry that is created, changed, renamed or removed in it. A directory that cannot be watched
   * (missing, not a directory) is reported through `onError` and skipped.
   */
  watch(
    directories: readonly string[],
    onChange: (directory: string, name: string) => void,
    onError?: (directory: string, error: unknown) => void,
  ): FileWatch;
}
