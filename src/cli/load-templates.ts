/**
 * Reads the MachineConfig template folder (`templates/` of this package by default) into the
 * `TemplateFile` list the pure template logic takes: every file, path relative to the folder.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TemplateFile } from '../logic/template/generate-template-configs.js';
import { CliError } from '../shell/cli-io.js';

/** The package's `templates/`, from src/cli (tests) or dist/src/cli (the built binary). */
export function defaultTemplatesDir(): string {
  for (const up of ['../../templates', '../../../templates']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new CliError('cannot find the templates folder: pass --templates-dir');
}

export function loadTemplates(dir: string): TemplateFile[] {
  const walk = (d: string): string[] =>
    readdirSync(d)
      .sort()
      .flatMap((entry) => {
        const p = join(d, entry);
        return statSync(p).isDirectory() ? walk(p) : [p];
      });
  let files: string[];
  try {
    files = walk(dir);
  } catch (e) {
    throw new CliError(`cannot read the templates folder ${dir}`, { cause: e });
  }
  return files.map((p) => ({
    path: relative(dir, p).split('\\').join('/'),
    content: readFileSync(p, 'utf8'),
  }));
}
