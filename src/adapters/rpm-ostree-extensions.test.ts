/**
 * Extensions on a CoreOS host: the exact commands (podman, chcon, `rpm-ostree update` with
 * upstream's generateExtensionsArgs arguments), the repository file while rpm-ostree runs and
 * its removal afterwards, and the staged-deployment check. rpm-ostree and podman cannot run
 * here, so a runner plays them and records every call (as coreos-host.test.ts does).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CommandResult, type CommandRunner } from '../ports/command-runner.js';
import { commandLine } from '../lib/command-line.js';
import { createCoreosHost } from './coreos-host.js';
import { ExtensionsRepoFile } from './rpm-ostree-extensions.js';

const Image = 'quay.io/openshift/ext@sha256:eeee';

function status(booted: string[], staged: string[] | undefined): string {
  const deployment = (checksum: string, pkgs: string[], isBooted: boolean) => ({
    id: `rhcos-${checksum}.0`,
    checksum,
    booted: isBooted,
    staged: !isBooted,
    'requested-base-removals': [],
    'requested-packages': pkgs,
  });
  return JSON.stringify({
    deployments: [
      ...(staged === undefined ? [] : [deployment('new', staged, false)]),
      deployment('old', booted, true),
    ],
  });
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mco-rpm-ostree-ext-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** rpm-ostree as a state machine: `update` stages what `--install`/`--uninstall` say (or `stageAs`). */
function fakeNode(booted: string[], o: { stageAs?: string[]; failUpdate?: boolean } = {}) {
  const lines: string[] = [];
  let staged: string[] | undefined;
  let repoDuringUpdate: string | undefined;
  const runner: CommandRunner = {
    run(chrooted) {
      // the host runs commands chrooted into its root: `chroot <root> /usr/bin/env PATH=… <argv>`
      const argv = chrooted[0] === 'chroot' ? chrooted.slice(4) : chrooted;
      const line = commandLine(argv);
      lines.push(line);
      const done = (r: Partial<CommandResult> = {}) =>
        Promise.resolve({ stdout: '', stderr: '', code: 0, ...r });
      if (line === 'rpm-ostree status --json') return done({ stdout: status(booted, staged) });
      if (line.startsWith('podman create')) return done({ stdout: 'cid-1\n' });
      if (argv[0] === 'rpm-ostree' && argv[1] === 'update') {
        const file = join(root, ExtensionsRepoFile);
        repoDuringUpdate = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
        if (o.failUpdate === true) return done({ code: 1, stderr: 'error: Packages not found: x' });
        const next = new Set(booted);
        for (let i = 2; i < argv.length; i += 2)
          if (argv[i] === '--install') next.add(argv[i + 1] ?? '');
          else next.delete(argv[i + 1] ?? '');
        staged = o.stageAs ?? [...next];
      }
      return done();
    },
  };
  return { host: createCoreosHost({ runner, root }), lines, repo: () => repoDuringUpdate };
}

describe('coreos host: extensions through rpm-ostree', () => {
  it('pulls the image, names its repository, installs and uninstalls by package, cleans up', async () => {
    const node = fakeNode(['usbguard', 'htop']);
    await node.host.os.applyExtensions?.({ image: Image, extensions: ['kerberos'] });
    const content = node.lines.find((l) => l.startsWith('podman cp'))?.split(' ')[3];
    expect(content).toMatch(/^\/run\/mco-extensions\/os-extensions-content-[0-9a-f]{12}$/);
    expect(node.lines).toEqual([
      'rpm-ostree status --json',
      `podman pull -q ${Image}`,
      `podman create --net=none ${Image}`,
      `podman cp cid-1:/ ${content ?? ''}`,
      'podman rm -f cid-1',
      `chcon -R -t var_run_t ${content ?? ''}`,
      'rpm-ostree update --install krb5-workstation --install libkadm5 --uninstall usbguard',
      'rpm-ostree status --json',
    ]);
    const nodePath = content ?? '';
    expect(node.repo()).toBe(
      `[coreos-extensions]\nenabled=1\nmetadata_expire=1m\nbaseurl=${nodePath}/usr/share/rpm-ostree/extensions/\ngpgcheck=0\nskip_if_unavailable=False\n`,
    );
    expect(existsSync(join(root, ExtensionsRepoFile))).toBe(false);
    expect(existsSync(join(root, content ?? '/nonexistent'))).toBe(false);
  });

  it('nothing to change runs no rpm-ostree update and pulls nothing', async () => {
    const node = fakeNode(['usbguard']);
    await node.host.os.applyExtensions?.({ image: Image, extensions: ['usbguard'] });
    expect(node.lines).toEqual(['rpm-ostree status --json']);
  });

  it('a staged deployment without every package is an error', async () => {
    const node = fakeNode([], { stageAs: ['krb5-workstation'] });
    await expect(
      node.host.os.applyExtensions?.({ image: Image, extensions: ['kerberos'] }),
    ).rejects.toThrow(
      'the following extension packages are missing from the staged deployment: [libkadm5]',
    );
  });

  it('a failed rpm-ostree update fails the step and still removes the repository', async () => {
    const node = fakeNode([], { failUpdate: true });
    await expect(
      node.host.os.applyExtensions?.({ image: Image, extensions: ['sysstat'] }),
    ).rejects.toThrow(/rpm-ostree update --install sysstat.*Packages not found/s);
    expect(existsSync(join(root, ExtensionsRepoFile))).toBe(false);
  });

  it('names outside the allowlist run nothing', async () => {
    const node = fakeNode([]);
    await expect(
      node.host.os.applyExtensions?.({ image: Image, extensions: ['$(reboot)'] }),
    ).rejects.toThrow('invalid extensions found: [$(reboot)]');
    expect(node.lines).toEqual([]);
  });

  it('reports the booted extensions from the requested packages', async () => {
    const node = fakeNode(['usbguard', 'krb5-workstation']);
    const s = await node.host.os.status();
    expect(s.booted.extensions).toEqual(['usbguard']);
  });
});
