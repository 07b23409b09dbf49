/**
 * OS images and release images for the end-to-end tests, made as an administrator makes them:
 * `mco os-image build` of a TestOS tree pushed to a registry on loopback, `mco release build`
 * naming it, and TestOS with a shell for builds whose Containerfile `RUN`s something (TestOS has
 * none; busybox-static's binary and a few applets are added to a copy of the tree).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { McoBin, RepoRoot } from './run-mco.js';

/** Fixed, so the same tree gives the same image digest on every run. */
const Timestamp = '1767225600';

/** The applets a build's `RUN` may use: `sh -c` needs `sh`; the rest are what tests run. */
const ShellApplets = ['sh', 'mkdir', 'echo', 'cat', 'false'] as const;

/** `mco ARGS…` to completion; its stdout, or an error with its stderr. */
export function mcoOutput(args: readonly string[], timeoutMs = 120_000): string {
  const r = spawnSync(process.execPath, [McoBin, ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (r.status !== 0)
    throw new Error(`mco ${args.join(' ')} exited ${String(r.status)}:\n${r.stderr}`);
  return r.stdout;
}

/** A TestOS tree of the repository (`testos`, `testos-2`) and its modes file. */
export function testosTree(name: string): { rootfs: string; modes: string } {
  return {
    rootfs: join(RepoRoot, `images/rootfs/${name}`),
    modes: join(RepoRoot, `images/rootfs/${name}.modes.json`),
  };
}

/** A copy of TestOS 1 at `dest` with busybox as /usr/bin/sh and friends; `dest`. */
export function testosWithShell(dest: string): string {
  cpSync(testosTree('testos').rootfs, dest, { recursive: true, verbatimSymlinks: true });
  cpSync('/bin/busybox', join(dest, 'usr/bin/busybox'));
  for (const applet of ShellApplets) symlinkSync('busybox', join(dest, 'usr/bin', applet));
  return dest;
}

/**
 * `mco os-image build` of `rootfs` pushed to `registry` as `testos:<tag>`; its pull spec by digest.
 * `modes` defaults to TestOS 1's (a tree copied from it keeps its modes).
 */
export function pushOsImage(o: {
  readonly registry: string;
  readonly rootfs: string;
  readonly version: string;
  readonly modes?: string;
  readonly tag?: string;
}): string {
  return mcoOutput([
    'os-image',
    'build',
    '--rootfs',
    o.rootfs,
    '--modes',
    o.modes ?? testosTree('testos').modes,
    '--version',
    o.version,
    '--timestamp',
    Timestamp,
    '--output',
    `docker://${o.registry}/testos:${o.tag ?? o.version}`,
  ]).trim();
}

/** `mco release build` naming `osImage`, pushed to `registry` as `release:<version>`; by digest. */
export function pushRelease(o: {
  readonly registry: string;
  readonly version: string;
  readonly osImage: string;
  readonly bootImage?: string;
}): string {
  return mcoOutput([
    'release',
    'build',
    '--version',
    o.version,
    '--os-image',
    o.osImage,
    ...(o.bootImage === undefined ? [] : ['--boot-image', o.bootImage]),
    '--timestamp',
    Timestamp,
    '--output',
    `docker://${o.registry}/release:${o.version}`,
  ]).trim();
}
