/**
 * NodeMachine (src/ports/node-machine.ts) on a node folder (nodeLayout): an OSTree sysroot under
 * `rootfs/sysroot`, the boot image deployed by `ostree admin deploy`, the real Ignition 2.14 run
 * into `rootfs` at provisioning (docs/reference/tools.md §1.3–1.4), and the simulated boot of ostree-boot.ts.
 *
 * Ignition needs `/etc/selinux/config` (it relabels through a no-op `setfiles` shim), but with
 * that file present ostree 2022.7 refreshes the SELinux policy with `semodule` inside bubblewrap
 * on every deploy that merges /etc (`Failed to execute child process “/usr/bin/bwrap”`). So the
 * boot image ships none, and provisioning writes it for the Ignition run only.
 */
import { access, chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { CommandRunner } from '../ports/command-runner.js';
import type {
  BootedOs,
  NodeDefinition,
  NodeMachine,
  ProvisionResult,
  RebootRequestRecord,
} from '../ports/node-machine.js';
import {
  bootDefault,
  finalizeStaged,
  linkRootView,
  nodeLayout,
  OriginImageKey,
  readBooted,
  readRebootRequest,
  viewRoot,
  writeJsonAtomic,
  type BootedRecord,
} from './ostree-boot.js';
import { OstreeCli } from './ostree.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Where Debian's ignition package puts the binary (it is meant for an initramfs, not PATH). */
const DefaultIgnitionBinary = '/usr/lib/dracut/modules.d/30ignition/ignition';
const DefaultPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const IgnitionStages = ['fetch-offline', 'fetch', 'kargs', 'disks', 'mount', 'files', 'umount'];
const SelinuxConfig = 'SELINUX=disabled\nSELINUXTYPE=targeted\n';
const SelinuxConfigPath = '/etc/selinux/config';
const IgnitionPreset = '/etc/systemd/system-preset/20-ignition.preset';

export interface OstreeNodeMachineOptions {
  readonly dir: string;
  readonly runner: CommandRunner;
  readonly ignitionBinary?: string;
  /** PATH for Ignition (it runs useradd, usermod and the setfiles shim from it). */
  readonly path?: string;
  /** Extra environment for Ignition (e.g. SSL_CERT_FILE). */
  readonly ignitionEnv?: Readonly<Record<string, string>>;
  readonly now?: () => Date;
  /** Whether a PID is alive and runs from this node folder (for reaping stale processes). */
  readonly processAlive?: (pid: number) => Promise<boolean>;
  readonly kill?: (pid: number, signal: 'SIGTERM' | 'SIGKILL') => void;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m?.[1] === undefined || m[2] === undefined) continue;
    out[m[1]] = m[2].replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  }
  return out;
}

/** `enable <unit>` lines of Ignition's preset file. */
export function presetEnabledUnits(text: string): string[] {
  return text
    .split('\n')
    .map((l) => /^enable\s+(\S+)/.exec(l.trim())?.[1])
    .filter((u): u is string => u !== undefined);
}

export function createOstreeNodeMachine(options: OstreeNodeMachineOptions): NodeMachine {
  const layout = nodeLayout(options.dir);
  const ostree = new OstreeCli(options.runner);
  const now = options.now ?? (() => new Date());
  const definitionFile = posix.join(layout.dir, 'node.json');
  const processesFile = posix.join(layout.state, 'processes.json');
  // every path on the node goes through the view's resolver; the rest are the node folder's own
  const view = viewRoot(layout.root);
  const readOnNode = async (path: string): Promise<string | undefined> =>
    (await view.readFile(path))?.toString('utf8');

  async function osRelease(): Promise<Record<string, string>> {
    for (const p of ['/etc/os-release', '/usr/lib/os-release']) {
      const text = await readOnNode(p).catch(() => undefined);
      if (text !== undefined) return parseOsRelease(text);
    }
    return {};
  }

  async function bootedOs(record: BootedRecord): Promise<BootedOs> {
    const release = await osRelease();
    const modules = await view
      .readdir(posix.join('/sysroot', record.deployment, 'usr/lib/modules'))
      .catch(() => [] as string[]);
    return {
      checksum: record.checksum,
      serial: record.serial,
      deployment: record.deployment,
      kernelArguments: record.kernelArguments,
      ...(record.version === undefined ? {} : { version: record.version }),
      ...(record.image === undefined ? {} : { image: record.image }),
      bootId: record.bootId,
      osImage: release['PRETTY_NAME'] ?? release['NAME'] ?? 'Linux',
      osId: release['ID'] ?? 'linux',
      kernelVersion: modules.sort()[0] ?? 'unknown',
    };
  }

  async function runIgnition(config: string, signal?: AbortSignal): Promise<ProvisionResult> {
    const work = posix.join(layout.state, 'ignition');
    const shim = posix.join(layout.state, 'shim');
    await mkdir(work, { recursive: true });
    await mkdir(shim, { recursive: true });
    await writeFile(
      posix.join(shim, 'setfiles'),
      '#!/bin/sh\n# no-op SELinux relabel; stdin: the NUL-separated paths Ignition wrote\ncat >/dev/null\nexit 0\n',
    );
    await chmod(posix.join(shim, 'setfiles'), 0o755);
    const configFile = posix.join(work, 'config.ign');
    await writeFile(configFile, config, { mode: 0o600 });
    for (const f of ['ignition.json', 'state', 'neednet'])
      await rm(posix.join(work, f), { force: true });
    const env = Object.entries({
      ...options.ignitionEnv,
      IGNITION_CONFIG_FILE: configFile,
      PATH: `${shim}:${options.path ?? DefaultPath}`,
    }).map(([k, v]) => `${k}=${v}`);
    const common = [
      `--root=${layout.root}`,
      '--platform=file',
      `--config-cache=${posix.join(work, 'ignition.json')}`,
      `--state-file=${posix.join(work, 'state')}`,
      '--log-to-stdout',
    ];
    let output = '';
    for (const stage of IgnitionStages) {
      if (stage === 'fetch' && !(await exists(posix.join(work, 'neednet')))) continue;
      const extra = stage.startsWith('fetch') ? [`--neednet=${posix.join(work, 'neednet')}`] : [];
      const r = await options.runner.run(
        [
          'env',
          ...env,
          options.ignitionBinary ?? DefaultIgnitionBinary,
          ...common,
          ...extra,
          `--stage=${stage}`,
        ],
        signal === undefined ? {} : { signal },
      );
      const text = `${r.stdout}${r.stderr}`
        .split('\n')
        .filter((l) => !l.includes('failed to log systemd journal entry'))
        .join('\n');
      output += `--- ${stage} (rc=${r.code})\n${text}\n`;
      if (r.code !== 0) return { ok: false, failedStage: stage, output, enabledUnits: [] };
    }
    return { ok: true, output, enabledUnits: [] };
  }

  const machine: NodeMachine = {
    dir: layout.dir,
    root: layout.root,

    installed: () => exists(definitionFile),

    async install(definition, signal) {
      if (await exists(definitionFile))
        throw new Error(`${layout.dir} already holds a node (node.json exists)`);
      await mkdir(layout.root, { recursive: true, mode: 0o755 });
      await view.mkdirAll('/sysroot', 0o755);
      await chmod(layout.dir, 0o755);
      await mkdir(layout.state, { recursive: true, mode: 0o700 });
      const { repo, ref, image } = definition.bootImage;
      const checksum = await ostree.revParse(repo, ref);
      if (checksum === undefined) throw new Error(`boot image: no ref ${ref} in ${repo}`);
      const release = parseOsRelease(
        (await options.runner.run(['ostree', `--repo=${repo}`, 'cat', ref, '/usr/lib/os-release']))
          .stdout,
      );
      const osname = release['ID'] ?? 'os';
      await ostree.initSysroot(layout.sysroot, osname);
      await ostree.pullLocal(layout.repo, repo, [ref], signal);
      let originFile: string | undefined;
      if (image !== undefined) {
        originFile = posix.join(layout.state, 'boot-image.origin');
        await writeFile(originFile, `[origin]\nrefspec=${ref}\n${OriginImageKey}=${image}\n`);
      }
      await ostree.deploy(
        {
          sysroot: layout.sysroot,
          osname,
          refspec: ref,
          kernelArguments: definition.kernelArguments,
          ...(originFile === undefined ? {} : { originFile }),
        },
        signal,
      );
      if (originFile !== undefined) await rm(originFile, { force: true });
      const [deployed] = await ostree.status(layout.sysroot);
      if (deployed === undefined) throw new Error(`deploying ${ref} left no deployment`);
      // CoreOS creates /var/usrlocal at boot (tmpfiles); /usr/local points there.
      await view.mkdirAll(`/sysroot/ostree/deploy/${osname}/var/usrlocal`, 0o755);
      await linkRootView(
        view,
        osname,
        `ostree/deploy/${osname}/deploy/${deployed.checksum}.${deployed.serial}`,
      );
      await writeJsonAtomic(definitionFile, definition);
    },

    async definition() {
      return JSON.parse(await readFile(definitionFile, 'utf8')) as NodeDefinition;
    },

    async provision(config, signal) {
      const selinuxDir = posix.dirname(SelinuxConfigPath);
      const madeDir = (await view.stat(selinuxDir)) === undefined;
      const wroteSelinux = (await view.stat(SelinuxConfigPath)) === undefined;
      if (wroteSelinux)
        await view.writeFileAtomic(SelinuxConfigPath, new TextEncoder().encode(SelinuxConfig), {
          mode: 0o644,
        });
      let result: ProvisionResult;
      try {
        result = await runIgnition(config, signal);
      } finally {
        // Unless the config wrote its own, the file goes (and the folder, if it came with it).
        if (
          wroteSelinux &&
          (await readOnNode(SelinuxConfigPath).catch(() => '')) === SelinuxConfig
        ) {
          await view.unlink(SelinuxConfigPath);
          if (madeDir) await view.rmdir(selinuxDir).catch(() => undefined);
        }
      }
      await writeFile(machine.logFile('ignition'), result.output);
      if (!result.ok) return result;
      const preset = (await readOnNode(IgnitionPreset).catch(() => undefined)) ?? '';
      const units = presetEnabledUnits(preset);
      for (const unit of units) {
        const r = await options.runner.run(['systemctl', `--root=${layout.root}`, 'preset', unit]);
        if (r.code !== 0)
          return {
            ...result,
            ok: false,
            failedStage: `systemctl preset ${unit}`,
            output: `${result.output}--- systemctl --root preset ${unit} (rc=${r.code})\n${r.stderr}\n`,
          };
      }
      return { ...result, enabledUnits: units };
    },

    async boot() {
      return bootedOs(await bootDefault(ostree, layout, view, now()));
    },

    async shutdown() {
      return (await finalizeStaged(ostree, layout, view)) !== undefined;
    },

    async booted() {
      const record = await readBooted(layout.state);
      return record === undefined ? undefined : bootedOs(record);
    },

    exists: async (path) => (await view.stat(path)) !== undefined,

    async takeRebootRequest(): Promise<RebootRequestRecord | undefined> {
      const request = await readRebootRequest(layout.state);
      if (request !== undefined) await rm(layout.rebootRequest, { force: true });
      return request;
    },

    logFile: (name) => posix.join(layout.dir, `${name}.log`),

    async recordProcesses(pids) {
      await writeJsonAtomic(processesFile, pids);
    },

    async reapStaleProcesses() {
      const alive = options.processAlive;
      const kill = options.kill;
      if (alive === undefined || kill === undefined) return [];
      let recorded: Record<string, number>;
      try {
        recorded = JSON.parse(await readFile(processesFile, 'utf8')) as Record<string, number>;
      } catch {
        return [];
      }
      const reaped: number[] = [];
      for (const pid of Object.values(recorded)) {
        if (!(await alive(pid))) continue;
        kill(pid, 'SIGTERM');
        for (let i = 0; i < 50 && (await alive(pid)); i++) await sleep(100);
        if (await alive(pid)) kill(pid, 'SIGKILL');
        reaped.push(pid);
      }
      await rm(processesFile, { force: true });
      return reaped;
    },

    async destroy() {
      await ostree.removeSysroot(layout.sysroot);
      await rm(layout.dir, { recursive: true, force: true });
    },
  };
  return machine;
}
