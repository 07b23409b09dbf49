/**
 * MachineConfig admission: the per-config checks the MCO applies before rendering
 * (`validateMachineConfig`: kernel type, Ignition parse and validation, file modes, extensions,
 * unit and drop-in names),
 * run at write time so an invalid config is refused with 422 and never stored. A config that fails
 * Ignition validation gets one cause per fatal report entry, at `spec.config.<path>`, carrying
 * Ignition's own message.
 */
import { FieldErrorType, invalidField, type FieldError } from '../../api/meta/v1/field-error.js';
import type { MachineConfigSpec } from '../../api/machineconfiguration/v1/machine-config.js';
import { parseIgnition, type IgnitionParseError } from '../../ignition/parse.js';
import { EntryKind } from '../../ignition/report.js';
import {
  describeMachineConfigValidationError,
  validateMachineConfig,
  type MachineConfigValidationError,
} from '../../logic/render/validate-machine-config.js';
import { describeSystemdNameProblem } from '../../logic/render/systemd-names.js';
import type { KubeObject } from '../resource-store.js';
import { fieldPath, valueAt } from './field-path.js';
import { isJsonMap } from './json.js';

/** The field errors of a MachineConfig's spec (empty when the MCO would accept it). */
export function machineConfigErrors(obj: KubeObject): FieldError[] {
  const spec = isJsonMap(obj['spec']) ? (obj['spec'] as MachineConfigSpec) : undefined;
  const result = validateMachineConfig(spec);
  if (result.ok) return [];
  return toFieldErrors(result.error, spec);
}

function toFieldErrors(
  e: MachineConfigValidationError,
  spec: MachineConfigSpec | undefined,
): FieldError[] {
  const detail = describeMachineConfigValidationError(e);
  switch (e.kind) {
    case 'InvalidKernelType':
      return [invalidField('spec.kernelType', e.kernelType, detail)];
    case 'InvalidExtensions':
      return [invalidField('spec.extensions', [...e.extensions], detail)];
    case 'InvalidMode':
      return [invalidField(modeField(spec, e.path), e.mode, detail)];
    case 'Ignition':
      return ignitionErrors(spec?.config, detail);
    case 'InvalidSystemdNames':
      return e.problems.map((p) =>
        invalidField(
          fieldPath(['spec', 'config', ...p.path]),
          p.name,
          describeSystemdNameProblem(p),
        ),
      );
  }
}

/** `spec.config.storage.files[i].mode` of the first file with that path. */
function modeField(spec: MachineConfigSpec | undefined, path: string): string {
  const files = valueAt(spec?.config, ['storage', 'files']);
  const index = Array.isArray(files)
    ? files.findIndex((f: unknown) => isJsonMap(f) && f['path'] === path)
    : -1;
  return index < 0
    ? 'spec.config.storage.files'
    : `spec.config.storage.files[${String(index)}].mode`;
}

function ignitionErrors(config: unknown, detail: string): FieldError[] {
  const parsed = parseIgnition(config);
  if (parsed.ok) return [valueError('spec.config', undefined, detail)];
  return parseErrors(parsed.error, config, detail);
}

function parseErrors(e: IgnitionParseError, config: unknown, detail: string): FieldError[] {
  switch (e.kind) {
    case 'Invalid':
      return e.report.entries
        .filter((entry) => entry.kind === EntryKind.Error)
        .map((entry) =>
          valueError(
            fieldPath(['spec', 'config', ...entry.path]),
            valueAt(config, entry.path),
            entry.message,
          ),
        );
    case 'InvalidVersion':
    case 'UnknownVersion':
      return [
        valueError(
          'spec.config.ignition.version',
          valueAt(config, ['ignition', 'version']),
          detail,
        ),
      ];
    case 'Empty':
    case 'Malformed':
      return [valueError('spec.config', undefined, detail)];
  }
}

/** field.Invalid; values that are not scalars are left out of the text (`Invalid value: why`). */
function valueError(field: string, value: unknown, detail: string): FieldError {
  const scalar =
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  return scalar
    ? invalidField(field, value, detail)
    : { type: FieldErrorType.Invalid, field, detail };
}
