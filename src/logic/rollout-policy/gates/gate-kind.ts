/**
 * What a health gate of a rollout policy is, apart from how it is asked: its field's schema under
 * `gates`, whether it is judged per updated node or once for the pool, whether a failure within a
 * node's soak counts for an automatic revert, a line that describes it, and the judgement of an
 * answer. The I/O that gets the answer is the probe table's (controller/node/rollout-probes.ts),
 * keyed by the same names, so the compiler names every place a new gate must fill.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Node } from '../../../api/core/v1/node.js';

interface GateKindBase<Config> {
  readonly schema: TSchema;
  /** A failure within a node's soak sends the node back (autoRevert); otherwise it is a wait. */
  readonly countsForRevert: boolean;
  /** What the gate checks, for the dashboard and `mco rollout status`. */
  describe(config: Config): string;
  /** A fault the schema cannot express, naming `path`; undefined when the config is sound. */
  check?(config: Config, path: string): string | undefined;
}

/**
 * Judged on each updated node. `Answer` is what the probe found on that node (`undefined` for a
 * gate that reads the Node object alone: it has no probe).
 */
export interface NodeGateKind<Config, Answer> extends GateKindBase<Config> {
  readonly scope: 'node';
  /** The checks that do not hold on `node` now; empty when the gate passes. */
  judge(config: Config, node: Node, answer: Answer | undefined): readonly string[];
  /** Brands the answer type (never read). */
  readonly answer?: Answer;
}

/** Judged once per pass for the whole pool, on what its probe answered. */
export interface PoolGateKind<Config, Answer> extends GateKindBase<Config> {
  readonly scope: 'pool';
  judge(config: Config, answer: Answer): readonly string[];
  readonly answer?: Answer;
}

// `any` in the config position: a table holds kinds of different configs.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyGateKind = NodeGateKind<any, unknown> | PoolGateKind<any, unknown>;

/** What a gate kind's probe answers. */
export type AnswerOf<G> =
  G extends NodeGateKind<unknown, infer A>
    ? A
    : G extends PoolGateKind<unknown, infer A>
      ? A
      : never;
