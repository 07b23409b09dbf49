/**
 * Result: the value of an expected outcome that can fail. Failures are data (a discriminated
 * union with `kind`), turned into text in one place per union, never parsed back.
 */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function err<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
