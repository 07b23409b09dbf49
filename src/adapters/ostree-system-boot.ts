/**
 * The booted deployment of a plain OSTree host, read from the running system as ostree itself
 * does: the `ostree=/ostree/boot.N/<os>/<bootcsum>/<serial>` argument of the root's
 * `/proc/cmdline` leads, inside the root's sysroot, to `ostree/deploy/<os>/deploy/<csum>.<serial>`.
 * The kernel arguments are the running ones, the boot ID is the kernel's. This takes the place of
 * the node supervisor's `booted.json` on a host that really booted (`/run/ostree-booted` exists).
 */
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import { splitKernelArguments } from '../logic/nodeplan/kernel-arguments.js';
import { OriginImageKey, readOrigin, type BootedRecord } from './ostree-boot.js';
import type { NodeRoot } from './node-root.js';
import { deploymentOfEntry, type OstreeCli } from './ostree.js';

/** The file ostree-prepare-root leaves on a system booted from a deployment. */
export const OstreeBootedPath = '/run/ostree-booted';

export async function readSystemBooted(view: NodeRoot, ostree: OstreeCli): Promise<BootedRecord> {
  const cmdline = (await view.readFile('/proc/cmdline'))?.toString('utf8').trim();
  if (cmdline === undefined)
    throw new Error(`${view.path}/proc/cmdline is missing: not a booted system`);
  const kernelArguments = splitKernelArguments(cmdline);
  const target = kernelArguments.find((a) => a.startsWith('ostree='))?.slice('ostree='.length);
  if (target === undefined || !target.startsWith('/ostree/boot.'))
    throw new Error(
      `${view.path}/proc/cmdline has no ostree=/ostree/boot.… argument: not booted from an OSTree deployment`,
    );
  const sysroot = view.hostPath('/sysroot');
  const ref = await deploymentOfEntry(sysroot, {
    file: '/proc/cmdline',
    title: '',
    version: 0,
    kernelArguments,
    ostreeTarget: target,
  });
  const listed = (await ostree.status(sysroot)).find(
    (d) => d.checksum === ref.checksum && d.serial === ref.serial,
  );
  const image = (await readOrigin(view, ref.path))[OriginImageKey];
  const bootId = (await view.readFile('/proc/sys/kernel/random/boot_id'))?.toString('utf8').trim();
  return {
    osname: ref.osname,
    checksum: ref.checksum,
    serial: ref.serial,
    deployment: ref.path,
    entry: target,
    kernelArguments: kernelArguments.filter((a) => !a.startsWith('ostree=')),
    ...(listed?.version === undefined ? {} : { version: listed.version }),
    ...(image === undefined ? {} : { image }),
    bootId: bootId === undefined || bootId === '' ? randomUUID() : bootId,
    bootedAt: '',
  };
}

/** Where a plain host keeps what finalizing a staged change needs (in its /run, gone at boot). */
export function systemStateDir(view: NodeRoot): string {
  return posix.join(view.hostPath('/run'), 'mco-host');
}
