/**
 * ValidateMachineConfig: the checks every component MachineConfig passes before it is merged
 * (docs/reference/render.md §3.7): kernel type, Ignition version and validity, file modes without
 * setuid/setgid/sticky bits, and extensions from the allowlist; and, beyond upstream, unit and
 * drop-in names that systemd takes (systemd-names.ts), since those names become paths on the node.
 */
import { unknownExtensions } from '../nodeplan/extension-packages.js';
import type { MachineConfigSpec } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  describeIgnitionParseError,
  parseIgnition,
  type ParseResult,
} from '../../ignition/parse.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  describeSystemdNameProblem,
  systemdNameProblems,
  type SystemdNameProblem,
} from './systemd-names.js';

export type MachineConfigValidationError =
  | { readonly kind: 'InvalidKernelType'; readonly kernelType: string }
  | { readonly kind: 'Ignition'; readonly message: string }
  | { readonly kind: 'InvalidMode'; readonly mode: number; readonly path: string }
  | { readonly kind: 'InvalidExtensions'; readonly extensions: readonly string[] }
  | { readonly kind: 'InvalidSystemdNames'; readonly problems: readonly SystemdNameProblem[] };

/** Go's `%#o`: octal with a leading zero (04755). */
function goAltOctal(n: number): string {
  return n === 0 ? '0' : `0${n.toString(8)}`;
}

export function describeMachineConfigValidationError(e: MachineConfigValidationError): string {
  switch (e.kind) {
    case 'InvalidKernelType':
      return `kernelType=${e.kernelType} is invalid`;
    case 'Ignition':
      return e.message;
    case 'InvalidMode':
      return `invalid mode ${goAltOctal(e.mode)} for ${e.path}, cannot exceed 0777`;
    case 'InvalidExtensions':
      return `invalid extensions found: [${e.extensions.join(' ')}]`;
    case 'InvalidSystemdNames':
      return e.problems.map(describeSystemdNameProblem).join('; ');
  }
}

const ValidKernelTypes: readonly string[] = ['', 'default', 'realtime', '64k-pages'];
const MaxPermissionBits = 0o777;

interface ModeCarrier {
  readonly path?: unknown;
  readonly mode?: unknown;
}

function filesOf(config: unknown): readonly ModeCarrier[] {
  if (typeof config !== 'object' || config === null) return [];
  const storage = (config as { storage?: { files?: unknown } }).storage;
  const files = storage?.files;
  return Array.isArray(files) ? (files as ModeCarrier[]) : [];
}

/**
 * Validates one MachineConfig spec. On success, returns its Ignition config as parsed (in its own
 * spec; `undefined` when the spec has none), so that merging need not parse it again. The parsed
 * config may share objects with `spec.config`: change neither.
 */
export function validateMachineConfig(
  spec: MachineConfigSpec | undefined,
): Result<ParseResult | undefined, MachineConfigValidationError> {
  const kernelType = spec?.kernelType ?? '';
  if (!ValidKernelTypes.includes(kernelType)) return err({ kind: 'InvalidKernelType', kernelType });
  if (spec?.config === undefined || spec.config === null) return ok(undefined);

  // IgnParseWrapper; docs/reference/render.md §3.7: a failed validation reads
  // `invalid ignition V3 config found: …`.
  const parsed = parseIgnition(spec.config, { shareInput: true });
  if (!parsed.ok)
    return err({ kind: 'Ignition', message: describeIgnitionParseError(parsed.error) });
  const checked = validateParsedMachineConfig(spec, parsed.value);
  return checked.ok ? ok(parsed.value) : checked;
}

/**
 * The checks of validateMachineConfig on a config its caller already parsed (the daemon parses
 * the target once for everything it decides): kernel type, file modes, unit and drop-in names,
 * extensions.
 */
export function validateParsedMachineConfig(
  spec: MachineConfigSpec,
  parsed: ParseResult,
): Result<void, MachineConfigValidationError> {
  const kernelType = spec.kernelType ?? '';
  if (!ValidKernelTypes.includes(kernelType)) return err({ kind: 'InvalidKernelType', kernelType });
  for (const file of filesOf(parsed.config)) {
    if (typeof file.mode === 'number' && file.mode > MaxPermissionBits) {
      return err({
        kind: 'InvalidMode',
        mode: file.mode,
        path: typeof file.path === 'string' ? file.path : '',
      });
    }
  }
  const names = systemdNameProblems(parsed.config);
  if (names.length > 0) return err({ kind: 'InvalidSystemdNames', problems: names });
  // Upstream only checks extensions when the config also has Ignition (a quirk we keep).
  const unknown = unknownExtensions(spec.extensions ?? []);
  if (unknown.length > 0) return err({ kind: 'InvalidExtensions', extensions: unknown });
  return ok(undefined);
}
