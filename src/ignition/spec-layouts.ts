/**
 * The layout and canonical-form functions keyed by spec version: which fields a struct of a spec
 * has, every path a spec can hold, and a config's canonical form under a spec's layout. Apart from
 * types.ts, because the layouts (specs/) hold the down-steps, and those are written in the types.
 */
import {
  toCanonicalForm,
  toCanonicalFormShared,
  toNeighbourCanonicalForm,
  type JsonRecord,
} from './canonical-form.js';
import { layoutFieldPaths, layoutFields, type FieldSpec } from './specs/go-layout.js';
import { IgnitionSpecs } from './specs/ignition-specs.js';
import type { SpecVersion } from './versions.js';

/** Fields of one struct in one spec, in Go order; empty when the spec has no such struct. */
export function structFields(version: SpecVersion, struct: string): readonly FieldSpec[] {
  return layoutFields(IgnitionSpecs.layout(version), struct);
}

/** Every JSON path a spec can hold, e.g. `storage.files.contents.compression`. */
export function fieldPaths(version: SpecVersion): readonly string[] {
  return layoutFieldPaths(IgnitionSpecs.layout(version));
}

/** The canonical form of a type-valid config of `version` (canonical-form.ts). */
export function canonicalize(value: unknown, version: SpecVersion): JsonRecord {
  return toCanonicalForm(value, IgnitionSpecs.layout(version));
}

/** `canonicalize`, sharing the parts of `value` that are canonical already. */
export function canonicalizeShared(value: unknown, version: SpecVersion): JsonRecord {
  return toCanonicalFormShared(value, IgnitionSpecs.layout(version));
}

/** `canonicalize(value, to)` for a value canonical for spec `from`, walking only what changed. */
export function recanonicalize(value: JsonRecord, from: SpecVersion, to: SpecVersion): JsonRecord {
  return toNeighbourCanonicalForm(value, IgnitionSpecs.layout(from), IgnitionSpecs.layout(to));
}
