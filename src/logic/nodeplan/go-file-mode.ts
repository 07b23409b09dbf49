/**
 * Go's os.FileMode for the mode texts of on-disk validation: `%v` (String, e.g. `-rw-r--r--`),
 * `%d` and `%#o` of the same value. What lstat reports is turned into the FileMode Go would
 * build from it (type bits, setuid/setgid/sticky as Go's own bits).
 */

export type FileKind = 'file' | 'directory' | 'symlink' | 'other';

const TypeBits: readonly (readonly [number, string])[] = [
  [2 ** 31, 'd'],
  [2 ** 30, 'a'],
  [2 ** 29, 'l'],
  [2 ** 28, 'T'],
  [2 ** 27, 'L'],
  [2 ** 26, 'D'],
  [2 ** 25, 'p'],
  [2 ** 24, 'S'],
  [2 ** 23, 'u'],
  [2 ** 22, 'g'],
  [2 ** 21, 'c'],
  [2 ** 20, 't'],
  [2 ** 19, '?'],
];

const ModeDir = 2 ** 31;
const ModeSymlink = 2 ** 27;
const ModeSetuid = 2 ** 23;
const ModeSetgid = 2 ** 22;
const ModeSticky = 2 ** 20;
const ModeIrregular = 2 ** 19;

const has = (mode: number, bit: number): boolean => Math.floor(mode / bit) % 2 === 1;

/** FileMode.String(). */
export function goFileModeString(mode: number): string {
  let out = '';
  for (const [bit, c] of TypeBits) if (has(mode, bit)) out += c;
  if (out === '') out = '-';
  const rwx = 'rwxrwxrwx';
  for (let i = 0; i < 9; i++) out += has(mode, 2 ** (8 - i)) ? rwx.charAt(i) : '-';
  return out;
}

/** `%v/%d/%#o` of a FileMode, as in `-rw-r--r--/420/0644`. */
export function goFileModeTriple(mode: number): string {
  const octal = mode === 0 ? '0' : `0${mode.toString(8)}`;
  return `${goFileModeString(mode)}/${String(mode)}/${octal}`;
}

/** The FileMode Go's Lstat gives for a file of this kind with these permission bits (0o7777). */
export function goFileModeFromStat(kind: FileKind, mode: number): number {
  let m = mode % 0o1000;
  if (has(mode, 0o4000)) m += ModeSetuid;
  if (has(mode, 0o2000)) m += ModeSetgid;
  if (has(mode, 0o1000)) m += ModeSticky;
  if (kind === 'directory') m += ModeDir;
  else if (kind === 'symlink') m += ModeSymlink;
  else if (kind === 'other') m += ModeIrregular;
  return m;
}
