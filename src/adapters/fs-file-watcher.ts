/**
 * The FileWatcher port (src/ports/file-watcher.ts) on node:fs `watch` (inotify on Linux). An
 * event without a file name (some platforms drop it) is reported as the name `''`, which the drift
 * monitor treats as "anything in this directory may have changed".
 */
import { watch, type FSWatcher } from 'node:fs';
import type { FileWatch, FileWatcher } from '../ports/file-watcher.js';

export const fsFileWatcher: FileWatcher = {
  watch(directories, onChange, onError): FileWatch {
    const watchers: FSWatcher[] = [];
    let closed = false;
    for (const directory of new Set(directories)) {
      try {
        const w = watch(directory, { persistent: false }, (_event, name) => {
          if (!closed) onChange(directory, name ?? '');
        });
        w.on('error', (e) => {
          if (!closed) onError?.(directory, e);
        });
        watchers.push(w);
      } catch (e) {
        onError?.(directory, e);
      }
    }
    return {
      close() {
        closed = true;
        for (const w of watchers) w.close();
      },
    };
  },
};
