/**
 * `mco manifests`: writes `deploy/` from the code (src/deploy): the CRDs of every custom kind the
 * embedded API server serves, the namespace, the operator's ConfigMap, RBAC per component and the
 * workloads. `--check` writes nothing and fails when the folder differs from what the code
 * generates (a file missing, changed, or a stale `.yaml` left over).
 *
 *   mco manifests [--dir deploy] [--check]
 *
 * Only `*.yaml` files are the command's: README.md and the Containerfile beside them are left
 * alone; a stale `.yaml` in the folder or its `crds/` is removed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command } from 'commander';
import { deployFiles, formatDeployFile } from '../deploy/deploy-files.js';
import { CliError, type CliIo } from '../shell/cli-io.js';

const Subfolders = ['', 'crds'];

/** Every `.yaml` under `dir` and `dir/crds`, as paths relative to `dir`. */
function yamlFiles(dir: string): string[] {
  return Subfolders.flatMap((sub) => {
    const folder = join(dir, sub);
    if (!existsSync(folder)) return [];
    return readdirSync(folder, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
      .map((e) => (sub === '' ? e.name : `${sub}/${e.name}`));
  });
}

/** The generated files, relative path → content. */
export function generatedManifests(): Map<string, string> {
  return new Map(deployFiles().map((f) => [f.path, formatDeployFile(f)]));
}

/** How `dir` differs from the generated files; empty when it matches. */
export function manifestDifferences(dir: string): string[] {
  const wanted = generatedManifests();
  const problems: string[] = [];
  for (const [path, text] of wanted) {
    const file = join(dir, path);
    if (!existsSync(file)) problems.push(`${path}: missing`);
    else if (readFileSync(file, 'utf8') !== text) problems.push(`${path}: differs`);
  }
  for (const path of yamlFiles(dir))
    if (!wanted.has(path)) problems.push(`${path}: not generated (stale)`);
  return problems;
}

export function writeManifests(dir: string, io: CliIo): void {
  const wanted = generatedManifests();
  for (const [path, text] of wanted) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    writeFileSync(file, text);
    io.out(`wrote ${file}\n`);
  }
  for (const path of yamlFiles(dir)) {
    if (wanted.has(path)) continue;
    rmSync(join(dir, path));
    io.out(`removed ${join(dir, path)}\n`);
  }
}

export function manifestsCommand(io: CliIo): Command {
  return new Command('manifests')
    .description(
      'Write deploy/ from the code: CRDs, namespace, ConfigMaps, RBAC per component and workloads',
    )
    .option('--dir <dir>', 'the folder to write (its *.yaml files are generated)', 'deploy')
    .option('--check', 'write nothing; fail if the folder differs from the code', false)
    .action((options: { dir: string; check: boolean }) => {
      if (!options.check) {
        writeManifests(options.dir, io);
        return;
      }
      const problems = manifestDifferences(options.dir);
      if (problems.length > 0)
        throw new CliError(
          `${options.dir} is not what the code generates (run mco manifests --dir ${options.dir}):\n  ${problems.join('\n  ')}`,
        );
      io.out(`${options.dir} matches the code\n`);
    });
}
