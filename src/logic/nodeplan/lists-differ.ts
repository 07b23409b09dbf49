/**
 * The diff's test for kernel arguments and extensions: "not both empty, and not element-wise
 * equal" (Go nil ≡ [], order matters).
 */
export function listsDiffer(a: readonly string[], b: readonly string[]): boolean {
  return !(a.length === b.length && a.every((x, i) => x === b[i]));
}
