/**
 * BuiltInKind: everything the embedded API server knows about one native Kubernetes kind, in one
 * place: its resource type (names, scope, schema, verbs, subresources), how writes treat it (the
 * registry strategy), how `kubectl get` prints it, how strategic merge patch merges its lists,
 * which field selectors it supports, and how its protobuf body decodes where kubectl sends one.
 * The server's per-kind lookups (resource-types.ts, store/strategy.ts, http/printers.ts,
 * store/strategic-merge-keys.ts, store/field-selectors.ts, http/body.ts) are derived from the
 * descriptors in kinds/index.ts.
 */
import type { TSchema } from '@sinclair/typebox';
import type { KubeObject } from '../resource-store.js';
import type { Subresource, Verb } from '../resource-type.js';
import type { ProtobufError } from '../http/protobuf.js';
import type { Printer } from '../http/table-types.js';
import type { Result } from '../../lib/result.js';
import type { KindStrategy } from '../store/kind-strategy.js';
import type { MergeKeyTable } from '../store/list-strategy.js';

/** The kind's own field-label conversion (k8s.io/kubernetes `AddFieldLabelConversionFunc`). */
export interface FieldSelectors {
  /** Every selectable field; any other is `field label not supported: <field>`. */
  readonly fields: readonly string[];
  /** Old names of fields, rewritten before the check (`spec.host` for `spec.nodeName`). */
  readonly aliases?: Readonly<Record<string, string>>;
  /** The values of the fields beyond metadata.name and metadata.namespace (the kind's GetAttrs). */
  readonly values: (obj: KubeObject) => Record<string, string>;
}

/** Decodes a `k8s\0` protobuf body of the kind into the JSON object the store accepts. */
type ProtobufCodec = (body: Uint8Array) => Result<Record<string, unknown>, ProtobufError>;

export interface BuiltInKind {
  /** API group; `''` for the core group. */
  readonly group: string;
  /** Served version; `v1` for every built-in kind so far. */
  readonly version: 'v1';
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** The TypeBox schema admission validates against and OpenAPI publishes. */
  readonly schema: TSchema;
  readonly shortNames?: readonly string[];
  /** `all` puts the kind into `kubectl get all`. */
  readonly categories?: readonly string[];
  /** Discovery's verbs; every verb when unset. */
  readonly verbs?: readonly Verb[];
  readonly subresources?: readonly Subresource[];
  /** What the kind's write behaviour changes from the built-in default (store/kind-strategy.ts). */
  readonly strategy?: Partial<KindStrategy>;
  /** The hand-written Table printer; unset: name and creation time. */
  readonly printer?: Printer;
  /** Lists merged by key or as sets under strategic merge patch; others are replaced whole. */
  readonly mergeKeys?: MergeKeyTable;
  /** Unset: only metadata.name and metadata.namespace, with the generic error text. */
  readonly fieldSelectors?: FieldSelectors;
  readonly protobuf?: ProtobufCodec;
}
