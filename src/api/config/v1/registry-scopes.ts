/**
 * The registry scope grammars of config.openshift.io (`types_image_digest_mirror_set.go`,
 * `types_image.go`): a mirror is `host[:port][/namespace…][/repo]`; a mirror source may also be a
 * wildcard `*.host`; an Image registry entry is either. The CRDs carry them as `pattern`s, and the
 * registries controller checks ImageContentSourcePolicy entries (whose CRD has none) against the
 * same expressions (docs/reference/registries.md §3).
 */

const Label = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const Host = `(${Label}(?:(?:\\.${Label})+)?(?::[0-9]+)?)`;
const Path = '(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?';
const Wildcard = `^\\*(?:\\.${Label})+$`;

/** `host[:port][/path]`: a mirror. */
export const MirrorPattern = `^${Host}${Path}$`;

/** A mirror or `*.host`: a mirror source, or an Image registry entry. */
export const SourcePattern = `${Wildcard}|${MirrorPattern}`;

/** The CEL rule of the Image registry lists (the CRD's text, for real API servers). */
export const RegistryEntryRule = {
  rule: `self.matches('${SourcePattern.replaceAll('\\', '\\\\')}')`,
  message:
    'each registry must be a valid hostname[:port][/path] or wildcard *.hostname format without tags or digests',
};
