/**
 * Runs one On-Cluster Layering build with buildah, as upstream's build pod does
 * (docs/reference/image-mode.md §5): `buildah bud` of the build context with vfs storage and
 * `--isolation chroot` (no daemon, no user namespace: Debian's buildah as root), then `buildah
 * push --digestfile` to the push spec. Every line both print goes to the build's log file (what
 * `mco logs machineosbuild/NAME` shows); the pushed digest is read from the digest file.
 *
 * Storage lives in the build's own folder and is removed afterwards, so a build never sees
 * another's layers and leaves nothing in /var/lib/containers. Aborting the signal kills buildah.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { OsImageBuilder } from '../../ports/os-image-builder.js';

export interface BuildahBuildOptions {
  /** Scratch folder of this build (context, storage); removed when done. */
  readonly workDir: string;
  readonly context: Readonly<Record<string, string>>;
  /** The Containerfile's name in the context (default `Containerfile`). */
  readonly containerfile?: string;
  /** Where the image goes, `host[:port]/repo:tag`. */
  readonly pushSpec: string;
  /** Appended to, line by line. */
  readonly logFile: string;
  /** containers-auth.json for pulling the base and pushing (both). */
  readonly authFile?: string;
  /** Plain HTTP and no certificate checks (loopback registries). */
  readonly insecureRegistry?: boolean;
  readonly binary?: string;
  readonly signal?: AbortSignal;
}

export interface BuildahBuildResult {
  readonly digest: string;
}

export class BuildahBuildError extends Error {
  override readonly name = 'BuildahBuildError';
}

function runLogged(
  argv: readonly string[],
  log: WriteStream,
  signal: AbortSignal | undefined,
): Promise<number> {
  return new Promise((resolve, reject) => {
    log.write(`$ ${argv.join(' ')}\n`);
    const child = spawn(argv[0] ?? 'buildah', argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal === undefined ? {} : { signal }),
    });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.once('error', (e) => {
      log.write(`${e.message}\n`);
      if (signal?.aborted === true) reject(e);
      else resolve(127);
    });
    child.once('close', (code) => {
      resolve(code ?? 1);
    });
  });
}

/** Builds and pushes; throws BuildahBuildError (its log says why) when either step fails. */
export async function runBuildahBuild(o: BuildahBuildOptions): Promise<BuildahBuildResult> {
  const buildah = o.binary ?? 'buildah';
  const ctx = posix.join(o.workDir, 'context');
  const storage = [
    `--root=${posix.join(o.workDir, 'storage')}`,
    `--runroot=${posix.join(o.workDir, 'run')}`,
    '--storage-driver=vfs',
  ];
  const tls = o.insecureRegistry === true ? ['--tls-verify=false'] : [];
  const auth = o.authFile === undefined ? [] : [`--authfile=${o.authFile}`];
  const digestFile = posix.join(o.workDir, 'digestfile');
  await mkdir(posix.dirname(o.logFile), { recursive: true });
  const log = createWriteStream(o.logFile, { flags: 'a' });
  try {
    for (const [name, text] of Object.entries(o.context)) {
      const path = posix.join(ctx, posix.normalize(name));
      if (!path.startsWith(`${ctx}/`))
        throw new BuildahBuildError(`context file ${name} leaves the context`);
      await mkdir(posix.dirname(path), { recursive: true });
      await writeFile(path, text);
    }
    const bud = await runLogged(
      [
        buildah,
        ...storage,
        'bud',
        '--isolation=chroot',
        ...tls,
        ...auth,
        `--tag=${o.pushSpec}`,
        `--file=${posix.join(ctx, o.containerfile ?? 'Containerfile')}`,
        ctx,
      ],
      log,
      o.signal,
    );
    if (bud !== 0) throw new BuildahBuildError(`buildah bud exited ${bud}`);
    const push = await runLogged(
      [
        buildah,
        ...storage,
        'push',
        ...tls,
        ...auth,
        `--digestfile=${digestFile}`,
        o.pushSpec,
        `docker://${o.pushSpec}`,
      ],
      log,
      o.signal,
    );
    if (push !== 0) throw new BuildahBuildError(`buildah push exited ${push}`);
    const digest = (await readFile(digestFile, 'utf8')).trim();
    if (!/^sha256:[0-9a-f]{64}$/.test(digest))
      throw new BuildahBuildError(`buildah push wrote no digest (${JSON.stringify(digest)})`);
    log.write(`pushed ${o.pushSpec} as ${digest}\n`);
    return { digest };
  } catch (e) {
    log.write(`build failed: ${(e as Error).message}\n`);
    throw e;
  } finally {
    await new Promise<void>((resolve) => log.end(resolve));
    await rm(o.workDir, { recursive: true, force: true });
  }
}

export interface BuildahOsImageBuilderOptions {
  /** Each build's scratch folder is made under it (and removed after). */
  readonly workRoot: string;
  /** `<logsDir>/<machineosbuild>.log`. */
  readonly logsDir: string;
  readonly authFile?: string;
  readonly binary?: string;
}

/** Loopback registries are plain HTTP, as our registry client and skopeo treat them. */
function isLoopbackSpec(spec: string): boolean {
  const host = spec.split('/')[0] ?? '';
  return /^127(\.\d{1,3}){3}(:\d+)?$/.test(host) || /^\[::1\](:\d+)?$/.test(host);
}

/** The box's OsImageBuilder: one buildah build per MachineOSBuild, logged by its name. */
export function createBuildahOsImageBuilder(o: BuildahOsImageBuilderOptions): OsImageBuilder {
  return {
    async build(input, signal) {
      await mkdir(o.workRoot, { recursive: true });
      return runBuildahBuild({
        workDir: posix.join(o.workRoot, `${input.name}-${randomUUID()}`),
        context: input.context,
        pushSpec: input.pushSpec,
        logFile: posix.join(o.logsDir, `${input.name}.log`),
        insecureRegistry: isLoopbackSpec(input.pushSpec),
        ...(o.authFile === undefined ? {} : { authFile: o.authFile }),
        ...(o.binary === undefined ? {} : { binary: o.binary }),
        ...(signal === undefined ? {} : { signal }),
      });
    },
  };
}
