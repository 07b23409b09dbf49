/**
 * Registry scopes as registries.conf matches them (docs/reference/registries.md §3): a scope is
 * `host[:port][/path]` or a host wildcard `*.dom`; a scope nests in another when equal, when it is a
 * path below it, or, for `*.dom`, when its host ends in `.dom`.
 */

/** Whether `sub` is `sup` or lies inside it. */
export function scopeIsNestedInsideScope(sub: string, sup: string): boolean {
  if (sub === sup) return true;
  if (sub.length > sup.length && sub.startsWith(sup) && sub[sup.length] === '/') return true;
  if (!sup.startsWith('*.')) return false;
  const suffix = sup.slice(1);
  if (sub.includes(':')) {
    const host = sub.split(':')[0] ?? '';
    return host.endsWith(suffix) && !host.includes('/');
  }
  return (sub.split('/')[0] ?? '').endsWith(suffix);
}

/** A scope registries.conf accepts: no wildcard, or exactly `*.` and a host without `/ @ : *`. */
export function isValidRegistriesConfScope(scope: string): boolean {
  if (scope === '') return false;
  if (!scope.includes('*')) return true;
  return scope.startsWith('*.') && !/[/@:*]/.test(scope.slice(2));
}
