/**
 * Upstream's getValidBlockedAndAllowedRegistries (docs/reference/registries.md §4): a blocked
 * registry that holds the release payload stays blocked only when the payload can still be pulled
 * from a mirror outside every blocked entry; then the payload repository is allowed in policy.json.
 * Otherwise the entry is dropped (and reported). Pure.
 */
import { err, ok, type Result } from '../../lib/result.js';
import { editRegistriesConfig, registryScope } from './edit-registries-config.js';
import type { MergedMirrorSet } from './merge-mirror-sets.js';
import { scopeIsNestedInsideScope } from './registry-scope.js';

export interface PayloadBlockInputs {
  readonly releaseImage: string;
  readonly blocked: readonly string[];
  readonly allowed: readonly string[];
  readonly insecure: readonly string[];
  readonly digestMirrors: readonly MergedMirrorSet[];
}

export interface PayloadBlockLists {
  readonly payloadRepo: string;
  readonly registriesBlocked: readonly string[];
  readonly policyBlocked: readonly string[];
  readonly policyAllowed: readonly string[];
  readonly skipped: readonly string[];
}

const Repository = /^[a-zA-Z0-9.-]+(?::[0-9]+)?(?:\/[a-z0-9._-]+)+$/;

/** The repository of an image reference: without `@digest` and without a `:tag`. */
export function imageRepository(reference: string): string | undefined {
  const name = reference.split('@')[0] ?? '';
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const repo = colon > slash && slash >= 0 ? name.slice(0, colon) : name;
  return Repository.test(repo) ? repo : undefined;
}

/** Where the payload is pulled from under these mirrors and blocks, in order. */
function pullSources(repo: string, inputs: PayloadBlockInputs): string[] {
  const conf = editRegistriesConfig(
    { other: {}, registries: [] },
    {
      insecure: inputs.insecure,
      blocked: inputs.blocked,
      digestMirrors: inputs.digestMirrors,
      tagMirrors: [],
    },
  );
  const match = conf.registries
    .filter((r) => scopeIsNestedInsideScope(repo, registryScope(r)))
    .sort((a, b) => registryScope(b).length - registryScope(a).length)[0];
  if (match === undefined) return [repo];
  const suffix = match.prefix === '' ? repo.slice(match.location.length) : '';
  return [...match.mirror.map((m) => `${m.location}${suffix}`), ...(match.blocked ? [] : [repo])];
}

export function payloadBlockLists(inputs: PayloadBlockInputs): Result<PayloadBlockLists, string> {
  const payloadRepo = imageRepository(inputs.releaseImage);
  if (payloadRepo === undefined)
    return err(`error parsing reference of release image ${JSON.stringify(inputs.releaseImage)}`);
  const registriesBlocked: string[] = [];
  const policyBlocked: string[] = [];
  const policyAllowed: string[] = [];
  const skipped: string[] = [];
  for (const reg of inputs.blocked) {
    if (!scopeIsNestedInsideScope(payloadRepo, reg)) {
      registriesBlocked.push(reg);
      policyBlocked.push(reg);
      continue;
    }
    const reachable = pullSources(payloadRepo, inputs).some(
      (source) => !inputs.blocked.some((b) => scopeIsNestedInsideScope(source, b)),
    );
    if (!reachable) {
      skipped.push(reg);
      continue;
    }
    registriesBlocked.push(reg);
    if (reg !== payloadRepo) policyBlocked.push(reg);
    if (!policyAllowed.includes(payloadRepo)) policyAllowed.push(payloadRepo);
  }
  policyAllowed.push(...inputs.allowed);
  return ok({ payloadRepo, registriesBlocked, policyBlocked, policyAllowed, skipped });
}

/** Upstream's log line for the dropped entries. */
export function describeSkippedBlocked(skipped: readonly string[]): string {
  return `error adding [${skipped.map((s) => JSON.stringify(s)).join(' ')}] to blocked registries, cannot block the repository being used by the payload, skipping....`;
}
