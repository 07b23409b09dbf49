/**
 * A pool's rollout policy from its annotation: JSON checked against the policy's schema, durations
 * and windows read, selectors checked. Any fault is an error naming the field, and the caller
 * holds the pool rather than roll out without the controls the administrator asked for.
 */
import { Ajv } from 'ajv';
import { RolloutPolicySchema, type RolloutPolicy } from './rollout-policy-schema.js';
import type { AnyGateKind } from './gates/gate-kind.js';
import { configuredGates, GateKinds } from './gates/gate-kinds.js';
import { labelSelectorFault } from '../../api/meta/v1/label-selector-matching.js';
import { err, ok, type Result } from '../../lib/result.js';
import { goDurationMs } from './go-duration-ms.js';
import { parseWindow, type ParsedWindow } from './maintenance-windows.js';
import { errorText } from '../../lib/error-text.js';

export interface ParsedRolloutPolicy {
  readonly source: RolloutPolicy;
  readonly windows: readonly ParsedWindow[];
  readonly soakMs: number;
  readonly canaryAutoResumeMs: number | undefined;
}

/** Annotations are at most 256 KiB in all; a policy far smaller than that is plenty. */
const MaxPolicyBytes = 32 * 1024;

/** The first fault a gate's own check finds beyond its schema. */
function gateError(policy: RolloutPolicy): string | undefined {
  for (const { name, config } of configuredGates(policy.gates)) {
    const kind: AnyGateKind = GateKinds[name];
    const fault = kind.check?.(config, `/gates/${name}`);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

// The schema carries Kubernetes' x- keywords and a Type.Unsafe string map, which typebox's own
// checker does not know: ajv reads it as the JSON Schema it is.
const ajv = new Ajv({ strict: false, allErrors: false });
const validate = ajv.compile<RolloutPolicy>(RolloutPolicySchema);

export function parseRolloutPolicy(text: string): Result<ParsedRolloutPolicy, string> {
  if (text.length > MaxPolicyBytes)
    return err(`the policy is ${text.length} bytes; at most ${MaxPolicyBytes} are read`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return err(`not JSON: ${errorText(e)}`);
  }
  if (!validate(json)) {
    const first = validate.errors?.[0];
    const extra = first?.params['additionalProperty'] as unknown;
    return err(
      first === undefined
        ? 'does not match the policy schema'
        : `${first.instancePath || '/'}: ${first.message ?? 'is invalid'}${typeof extra === 'string' ? `: ${JSON.stringify(extra)}` : ''}`,
    );
  }
  const policy = json;
  const windows: ParsedWindow[] = [];
  for (const [i, w] of (policy.windows ?? []).entries()) {
    const parsed = parseWindow(w);
    if (!parsed.ok) return err(`/windows/${i}: ${parsed.error}`);
    windows.push(parsed.value);
  }
  const canary = policy.canary;
  if (canary !== undefined && (canary.count === undefined) === (canary.selector === undefined))
    return err('/canary: set exactly one of count and selector');
  const approval = policy.approval;
  if (approval !== undefined && approval.rebootsAbove === undefined && approval.paths === undefined)
    return err('/approval: set rebootsAbove, paths or both');
  const bad = gateError(policy) ?? labelSelectorFault('/canary/selector', canary?.selector);
  if (bad !== undefined) return err(bad);
  const soak = policy.gates?.soak;
  const autoResume = canary?.autoResumeAfter;
  return ok({
    source: policy,
    windows,
    soakMs: soak === undefined ? 0 : (goDurationMs(soak) ?? 0),
    canaryAutoResumeMs: autoResume === undefined ? undefined : goDurationMs(autoResume),
  });
}
