/**
 * The box's build logs (ports/build-log-source.ts): `<dir>/<machineosbuild>.log`, as the build
 * controller writes them (`mco controller --build-dir`, `logs/`). Only the tail is read, from the
 * start of a line, so a long build cannot make the dashboard hold its whole output; the file is
 * opened without following a symlink.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { dns1123SubdomainProblems } from '../api/meta/v1/label-selector-matching.js';
import type { BuildLogRead, BuildLogSource } from '../ports/build-log-source.js';

async function readTail(path: string, limit: number): Promise<BuildLogRead> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'absent', message: 'no log for this build (yet)' };
    return { kind: 'absent', message: `the log cannot be read (${code ?? String(e)})` };
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - limit);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return { kind: 'log', text, truncated: start > 0 };
  } finally {
    await handle.close();
  }
}

export function buildLogsFolder(dir: string): BuildLogSource {
  return {
    read(build, limit) {
      if (dns1123SubdomainProblems(build).length > 0)
        return Promise.resolve({ kind: 'absent', message: `"${build}" is not a build name` });
      return readTail(join(dir, `${build}.log`), limit);
    },
  };
}
