/**
 * Where a node pulls an image from, given its `/etc/containers/registries.conf`: the
 * containers/image (sysregistriesv2) rules the registries controller writes for
 * (docs/reference/registries.md §3): the `[[registry]]` whose scope (`prefix`, else `location`)
 * is the longest match of the reference (equal, or followed by `/`, `:` or `@`) supplies mirrors,
 * tried in order, with the matched scope replaced by the mirror's location; a mirror with
 * `pull-from-mirror = "digest-only"` serves only references by digest, `"tag-only"` only by tag,
 * `"all"` (or unset) both; then the source itself unless the entry is `blocked`. Wildcard scopes
 * (`*.example.com`) match but only rewrite to the source. Unparsable files are an error, not a
 * silent "no mirrors".
 */
import { parse } from 'smol-toml';
import { err, ok, type Result } from '../../lib/result.js';

interface MirrorEntry {
  readonly location: string;
  readonly pullFromMirror: string;
}

interface RegistryEntry {
  readonly scope: string;
  readonly location: string;
  readonly blocked: boolean;
  readonly mirrors: readonly MirrorEntry[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function entries(text: string): RegistryEntry[] {
  const doc = parse(text) as { registry?: unknown };
  const list = Array.isArray(doc.registry) ? (doc.registry as unknown[]) : [];
  return list.flatMap((r) => {
    if (typeof r !== 'object' || r === null) return [];
    const o = r as Record<string, unknown>;
    const location = str(o['location']);
    const prefix = str(o['prefix']);
    const mirrors = Array.isArray(o['mirror']) ? (o['mirror'] as unknown[]) : [];
    return [
      {
        scope: prefix !== '' ? prefix : location,
        location,
        blocked: o['blocked'] === true,
        mirrors: mirrors.flatMap((m) =>
          typeof m === 'object' && m !== null
            ? [
                {
                  location: str((m as Record<string, unknown>)['location']),
                  pullFromMirror: str((m as Record<string, unknown>)['pull-from-mirror']),
                },
              ]
            : [],
        ),
      },
    ];
  });
}

function matches(scope: string, reference: string): boolean {
  if (scope === '') return false;
  if (scope.startsWith('*.')) {
    const host = reference.split('/')[0] ?? '';
    return host.endsWith(scope.slice(1));
  }
  if (!reference.startsWith(scope)) return false;
  const next = reference.charAt(scope.length);
  return next === '' || next === '/' || next === ':' || next === '@';
}

export interface PullSources {
  /** References to try, in order. */
  readonly references: readonly string[];
  /** The source was left out because its entry is `blocked`. */
  readonly sourceBlocked: boolean;
}

/** `reference` is `host[:port]/path[:tag][@digest]`; the result's first entry is tried first. */
export function pullSources(
  registriesConf: string | undefined,
  reference: string,
): Result<PullSources, string> {
  if (registriesConf === undefined || registriesConf.trim() === '')
    return ok({ references: [reference], sourceBlocked: false });
  let list: RegistryEntry[];
  try {
    list = entries(registriesConf);
  } catch (e) {
    return err(`failed decoding /etc/containers/registries.conf: ${(e as Error).message}`);
  }
  const best = list
    .filter((r) => matches(r.scope, reference))
    .sort((a, b) => b.scope.length - a.scope.length)[0];
  if (best === undefined) return ok({ references: [reference], sourceBlocked: false });
  const byDigest = reference.includes('@');
  const wildcard = best.scope.startsWith('*.');
  const rest = reference.slice(best.scope.length);
  const mirrors = wildcard
    ? []
    : best.mirrors
        .filter((m) => m.location !== '')
        .filter((m) =>
          byDigest ? m.pullFromMirror !== 'tag-only' : m.pullFromMirror !== 'digest-only',
        )
        .map((m) => `${m.location}${rest}`);
  const source = best.location !== '' && !wildcard ? `${best.location}${rest}` : reference;
  return ok({
    references: best.blocked ? mirrors : [...mirrors, source],
    sourceBlocked: best.blocked,
  });
}
