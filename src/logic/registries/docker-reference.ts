/**
 * The docker reference grammar containers/image checks image names with (its `docker/reference`
 * package, as the registries controller's sigstore code uses it, docs/reference/registries.md §5):
 * a name is `[domain/]component(/component)*`, optionally followed by `:tag` and `@digest`, and the
 * errors read as that package writes them. Pure.
 */
import { err, ok, type Result } from '../../lib/result.js';

const AlphaNumeric = '[a-z0-9]+';
const Separator = '(?:[._]|__|[-]*)';
const DomainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const Tag = String.raw`[\w][\w.-]{0,127}`;
const Digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const NameComponent = `${AlphaNumeric}(?:${Separator}${AlphaNumeric})*`;
const Domain = `${DomainComponent}(?:\\.${DomainComponent})*(?::[0-9]+)?`;
const Name = `(?:${Domain}/)?${NameComponent}(?:/${NameComponent})*`;

const AnchoredDomain = new RegExp(`^${Domain}$`);
const DomainPrefix = new RegExp(`^${Domain}/`);
const AnchoredName = new RegExp(`^${Name}$`);
const AnchoredReference = new RegExp(`^(${Name})(?::(${Tag}))?(?:@(${Digest}))?$`);
const AnchoredIdentifier = /^[a-f0-9]{64}$/;
const NameTotalLengthMax = 255;

/** A parsed reference: its name (the repository) and, when given, its tag and digest. */
export interface DockerReference {
  readonly name: string;
  readonly tag?: string;
  readonly digest?: string;
}

/** `reference.Parse`: the reference as written, not normalized. */
export function parseDockerReference(s: string): Result<DockerReference, string> {
  const m = AnchoredReference.exec(s);
  if (m === null) {
    if (s === '') return err('repository name must have at least one component');
    if (AnchoredReference.test(s.toLowerCase())) return err('repository name must be lowercase');
    return err('invalid reference format');
  }
  const name = m[1] ?? '';
  if (name.length > NameTotalLengthMax)
    return err(`repository name must not be more than ${NameTotalLengthMax} characters`);
  return ok({
    name,
    ...(m[2] === undefined ? {} : { tag: m[2] }),
    ...(m[3] === undefined ? {} : { digest: m[3] }),
  });
}

/** `reference.ParseNormalizedNamed`'s checks: short names count as docker.io names. */
export function checkNormalizedName(s: string): Result<void, string> {
  if (AnchoredIdentifier.test(s))
    return err(`invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`);
  const slash = s.indexOf('/');
  const first = slash < 0 ? '' : s.slice(0, slash);
  const hasDomain = slash >= 0 && (/[.:]/.test(first) || first === 'localhost');
  let domain = hasDomain ? first : 'docker.io';
  let remainder = hasDomain ? s.slice(slash + 1) : s;
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  const tagAt = remainder.indexOf(':');
  const remoteName = tagAt < 0 ? remainder : remainder.slice(0, tagAt);
  if (remoteName.toLowerCase() !== remoteName)
    return err('invalid reference format: repository name must be lowercase');
  const parsed = parseDockerReference(`${domain}/${remainder}`);
  return parsed.ok ? ok(undefined) : parsed;
}

/**
 * containers/image's check of a remapIdentity prefix: a bare `host[:port]`, or a name that starts
 * with one. Like the original, it does not catch every bad value.
 */
export function isValidIdentityRemapPrefix(s: string): boolean {
  return AnchoredDomain.test(s) || (AnchoredName.test(s) && DomainPrefix.test(s));
}
