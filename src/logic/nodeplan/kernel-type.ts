/**
 * Kernel types of a MachineConfig (`spec.kernelType`) and the rpm-ostree overrides that switch
 * between them (docs/reference/daemon.md §7.8 steps 4 and 7).
 */
import { err, ok, type Result } from '../../lib/result.js';

export const KernelType = {
  Default: 'default',
  Realtime: 'realtime',
  SixtyFourKPages: '64k-pages',
} as const;
export type KernelType = (typeof KernelType)[keyof typeof KernelType];

/** helpers.CanonicalizeKernelType: "realtime" and "64k-pages" are kept, anything else is default. */
export function canonicalizeKernelType(kernelType: string | undefined): KernelType {
  if (kernelType === KernelType.Realtime) return KernelType.Realtime;
  if (kernelType === KernelType.SixtyFourKPages) return KernelType.SixtyFourKPages;
  return KernelType.Default;
}

const DefaultKernelPackages = [
  'kernel',
  'kernel-core',
  'kernel-modules',
  'kernel-modules-core',
  'kernel-modules-extra',
] as const;
const RealtimeKernelPackages = ['kernel-rt-core', 'kernel-rt-modules', 'kernel-rt-modules-extra'];
const SixtyFourKPackages = [
  'kernel-64k-core',
  'kernel-64k-modules',
  'kernel-64k-modules-core',
  'kernel-64k-modules-extra',
];

export type KernelSwitchError = { readonly kind: 'SixtyFourKNotSupported' };

const KernelSwitchErrorText: Readonly<Record<KernelSwitchError['kind'], string>> = {
  SixtyFourKNotSupported: '64k-pages is only supported for aarch64 architecture',
};

export function describeKernelSwitchError(e: KernelSwitchError): string {
  return KernelSwitchErrorText[e.kind];
}

/**
 * The `rpm-ostree` arguments that put the new kernel type in place, or `undefined` when the
 * default kernel needs nothing (the kernel swap was already undone).
 */
export function kernelSwitchArgs(
  newKernelType: string | undefined,
  arch: string,
): Result<readonly string[] | undefined, KernelSwitchError> {
  const kernel = canonicalizeKernelType(newKernelType);
  if (kernel === KernelType.Default) return ok(undefined);
  if (kernel === KernelType.SixtyFourKPages && arch !== 'arm64')
    return err({ kind: 'SixtyFourKNotSupported' });
  const install = kernel === KernelType.Realtime ? RealtimeKernelPackages : SixtyFourKPackages;
  return ok([
    'override',
    'remove',
    ...DefaultKernelPackages,
    ...install.flatMap((p) => ['--install', p]),
  ]);
}

/**
 * upstream queueRevertKernelSwap: undo a kernel swap only when the booted deployment both removed
 * base kernel packages and layered kernel-rt/kernel-64k ones (local kernel hotfixes stay alone).
 */
export function revertKernelSwapArgs(
  requestedBaseRemovals: readonly string[],
  requestedPackages: readonly string[],
): readonly string[] | undefined {
  const overrides = requestedBaseRemovals.filter((r) => r === 'kernel' || r.startsWith('kernel-'));
  const layers = requestedPackages.filter(
    (p) => p.startsWith('kernel-rt-') || p.startsWith('kernel-64k-'),
  );
  if (overrides.length === 0 || layers.length === 0) return undefined;
  return ['override', 'reset', ...overrides, ...layers.flatMap((p) => ['--uninstall', p])];
}
