/**
 * Ignition spec versions the system reads and writes, and how upstream names them in messages.
 */
export const SpecVersions = [
  '2.2.0',
  '3.0.0',
  '3.1.0',
  '3.2.0',
  '3.3.0',
  '3.4.0',
  '3.5.0',
] as const;
export type SpecVersion = (typeof SpecVersions)[number];

/** The newest spec: the internal representation every config is translated up to. */
export const MaxSpecVersion = '3.5.0' satisfies SpecVersion;

/** `2.2,3.0,3.1,3.2,3.3,3.4,3.5`, as upstream joins GetSupportedMinorVersions(). */
export const SupportedMinorVersionsText = SpecVersions.map((v) =>
  v.slice(0, v.lastIndexOf('.')),
).join(',');

export function isSpecVersion(v: string): v is SpecVersion {
  return (SpecVersions as readonly string[]).includes(v);
}
