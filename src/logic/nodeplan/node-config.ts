/**
 * NodeConfig: a MachineConfig as the daemon works with it, its Ignition already parsed and taken
 * to spec 3.5 (upstream parses with ParseAndConvertConfig at the top of every step). Parsing once
 * up front keeps every decision below a plain function of data.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { describeMcoParseError, parseAndConvertConfig } from '../../ignition/mco-parse.js';
import type { McoParseError } from '../../ignition/mco-parse.js';
import type { IgnitionConfig } from '../../ignition/types.js';
import { err, ok, type Result } from '../../lib/result.js';
import { InternalSpecVersion } from '../../ignition/versions.js';

export interface NodeConfig {
  readonly name: string;
  readonly osImageURL: string;
  readonly kernelArguments: readonly string[];
  readonly extensions: readonly string[];
  /** `baseOSExtensionsContainerImage`: where the extensions come from ('' or absent: nowhere). */
  readonly extensionsImage?: string;
  readonly fips: boolean;
  readonly kernelType: string;
  readonly ignition: IgnitionConfig;
}

/** Which side of an update a config is, for upstream's "parsing old/new …" texts. */
export type ConfigSide = 'old' | 'new';

export interface NodeConfigError {
  readonly side: ConfigSide;
  readonly config: string;
  readonly error: McoParseError;
}

/** Upstream's text in update(): `parsing <side> Ignition config failed: <parse error>`. */
export function describeNodeConfigError(e: NodeConfigError): string {
  return `parsing ${e.side} Ignition config failed: ${describeMcoParseError(e.error)}`;
}

/** The name upstream gives the stand-in for "no config" (canonicalizeEmptyMC). */
export const EmptyMachineConfigName = 'mco-empty-mc';

/** An empty Ignition config of the internal spec (ctrlcommon.NewIgnConfig). */
export function emptyIgnition(): IgnitionConfig {
  return { ignition: { version: InternalSpecVersion } };
}

/** upstream canonicalizeEmptyMC: the config used as "old" when a node has none. */
export function emptyNodeConfig(overrides: Partial<Omit<NodeConfig, 'name'>> = {}): NodeConfig {
  return {
    name: EmptyMachineConfigName,
    osImageURL: '',
    kernelArguments: [],
    extensions: [],
    fips: false,
    kernelType: '',
    ignition: emptyIgnition(),
    ...overrides,
  };
}

export function parseNodeConfig(
  mc: MachineConfig,
  side: ConfigSide = 'new',
): Result<NodeConfig, NodeConfigError> {
  const name = mc.metadata.name ?? '';
  const spec = mc.spec ?? {};
  const parsed = parseAndConvertConfig(spec.config ?? emptyIgnition());
  if (!parsed.ok) return err({ side, config: name, error: parsed.error });
  return ok({
    name,
    osImageURL: spec.osImageURL ?? '',
    kernelArguments: spec.kernelArguments ?? [],
    extensions: spec.extensions ?? [],
    extensionsImage: spec.baseOSExtensionsContainerImage ?? '',
    fips: spec.fips === true,
    kernelType: spec.kernelType ?? '',
    ignition: parsed.value,
  });
}
