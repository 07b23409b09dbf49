/**
 * Every health gate kind of a rollout policy, by its field under `gates`, and the `gates` schema
 * built from them. Adding a gate is a file in this folder, a line here, and a row in the probe
 * table if it has a probe. The order is the order a node's failures are listed in.
 */
import { Type } from '@sinclair/typebox';
import { GoDurationSchema } from '../../../api/machineconfiguration/v1/rollout-policy.js';
import type { AnswerOf, NodeGateKind, PoolGateKind } from './gate-kind.js';
import { httpProbeGate } from './http-probe-gate.js';
import { nodeConditionGate } from './node-condition-gate.js';
import { podSelectorGate } from './pod-selector-gate.js';
import { prometheusGate } from './prometheus-gate.js';

export const GateKinds = {
  nodeCondition: nodeConditionGate,
  podSelector: podSelectorGate,
  prometheus: prometheusGate,
  httpProbe: httpProbeGate,
} as const;
type GateName = keyof typeof GateKinds;

type ConfigOf<G> =
  G extends NodeGateKind<infer C, unknown>
    ? C
    : G extends PoolGateKind<infer C, unknown>
      ? C
      : never;
export type GateConfig<K extends GateName> = ConfigOf<(typeof GateKinds)[K]>;

/** The gates a probe answers (those whose kind reads more than the Node object). */
export type ProbedGateName = {
  [K in GateName]: AnswerOf<(typeof GateKinds)[K]> extends undefined ? never : K;
}[GateName];
export type GateAnswer<K extends GateName> = AnswerOf<(typeof GateKinds)[K]>;

/**
 * What the probes answered this pass, for the gates that were asked: a node gate's answers by
 * node name, a pool gate's one answer. A gate not asked (nothing left to roll out) is absent.
 */
export type GateAnswers = {
  readonly [K in ProbedGateName]?: (typeof GateKinds)[K]['scope'] extends 'node'
    ? ReadonlyMap<string, GateAnswer<K>>
    : GateAnswer<K>;
};

/** `gates` of a rollout policy. */
export type HealthGates = { readonly soak?: string } & {
  readonly [K in GateName]?: GateConfig<K>;
};

export const HealthGatesSchema = Type.Unsafe<HealthGates>(
  Type.Object(
    {
      soak: Type.Optional(GoDurationSchema),
      ...Object.fromEntries(
        Object.entries(GateKinds).map(([name, kind]) => [name, Type.Optional(kind.schema)]),
      ),
    },
    { additionalProperties: false },
  ),
);

/** One gate a policy configures, with its config. */
export type ConfiguredGate = {
  [K in GateName]: { readonly name: K; readonly config: GateConfig<K> };
}[GateName];

/** The gates `gates` configures, in table order. */
export function configuredGates(gates: HealthGates | undefined): ConfiguredGate[] {
  if (gates === undefined) return [];
  return (Object.keys(GateKinds) as GateName[]).flatMap((name) => {
    const config = gates[name];
    return config === undefined ? [] : [{ name, config } as ConfiguredGate];
  });
}
