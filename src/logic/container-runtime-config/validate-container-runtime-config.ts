/**
 * Which ContainerRuntimeConfig values the controller refuses (upstream
 * validateUserContainerRuntimeConfig, docs/reference/api.md §2.6), in upstream's order and words.
 */
import type { ContainerRuntimeConfig } from '../../api/machineconfiguration/v1/container-runtime-config.js';
import { err, ok, type Result } from '../../lib/result.js';
import { quantityValue } from './quantity.js';

/** CRI-O refuses smaller log files (8 KiB) and pid limits (20). */
const MinLogSize = 8192;
const MinPidsLimit = 20;

const ValidLogLevels = ['error', 'fatal', 'panic', 'warn', 'info', 'debug', 'trace'] as const;

export type ContainerRuntimeConfigError =
  | { readonly kind: 'PidsLimit'; readonly value: number }
  | { readonly kind: 'LogSizeMax'; readonly value: string }
  | { readonly kind: 'OverlaySize'; readonly value: string }
  | { readonly kind: 'LogLevel'; readonly value: string }
  | { readonly kind: 'DefaultRuntime'; readonly value: string };

export function describeContainerRuntimeConfigError(e: ContainerRuntimeConfigError): string {
  switch (e.kind) {
    case 'PidsLimit':
      return `invalid PidsLimit ${e.value}`;
    case 'LogSizeMax':
      return `invalid LogSizeMax ${JSON.stringify(e.value)}, cannot be less than 8kB`;
    case 'OverlaySize':
      return `invalid overlaySize ${JSON.stringify(e.value)}, cannot be less than 0`;
    case 'LogLevel':
      return `invalid LogLevel ${JSON.stringify(e.value)}, must be one of error, fatal, panic, warn, info, debug, or trace`;
    case 'DefaultRuntime':
      return `invalid DefaultRuntime ${JSON.stringify(e.value)}, must be one of crun, runc`;
  }
}

type Settings = ContainerRuntimeConfig['spec']['containerRuntimeConfig'];

function sizeError(c: Settings): ContainerRuntimeConfigError | undefined {
  if (c.pidsLimit !== undefined && c.pidsLimit !== 0 && c.pidsLimit < MinPidsLimit)
    return { kind: 'PidsLimit', value: c.pidsLimit };
  if (c.logSizeMax !== undefined) {
    const v = quantityValue(c.logSizeMax) ?? 0;
    if (v > 0 && v <= MinLogSize) return { kind: 'LogSizeMax', value: String(c.logSizeMax) };
  }
  if (c.overlaySize !== undefined && (quantityValue(c.overlaySize) ?? 0) < 0)
    return { kind: 'OverlaySize', value: String(c.overlaySize) };
  return undefined;
}

export function validateContainerRuntimeConfig(
  crc: ContainerRuntimeConfig,
): Result<void, ContainerRuntimeConfigError> {
  const c = crc.spec.containerRuntimeConfig;
  const size = sizeError(c);
  if (size !== undefined) return err(size);
  if (
    c.logLevel !== undefined &&
    c.logLevel !== '' &&
    !(ValidLogLevels as readonly string[]).includes(c.logLevel)
  )
    return err({ kind: 'LogLevel', value: c.logLevel });
  const runtime = c.defaultRuntime ?? '';
  if (runtime !== '' && runtime !== 'crun' && runtime !== 'runc')
    return err({ kind: 'DefaultRuntime', value: runtime });
  return ok(undefined);
}
