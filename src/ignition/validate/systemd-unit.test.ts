import { describe, expect, it } from 'vitest';
import { parseUnitContents } from './systemd-unit.js';

describe('parseUnitContents: sections that carry options', () => {
  it.each<[string, string | null, readonly string[]]>([
    ['no contents', null, []],
    ['empty', '', []],
    ['one option', '[Unit]\nDescription=x\n', ['Unit']],
    ['an empty section carries none', '[Install]\n', []],
    [
      'two sections',
      '[Service]\nExecStart=/bin/true\n\n[Install]\nWantedBy=a\n',
      ['Service', 'Install'],
    ],
    ['one entry per option', '[A]\nB=1\nC=2\n', ['A', 'A']],
    ['comments', '# c\n; d\n[Unit]\n# e\nA=b\n', ['Unit']],
    ['continued values', '[Unit]\nA=b\\\n c\n', ['Unit']],
    ['CRLF', '[A]\r\nB=1\r\n', ['A']],
    ['no trailing newline', '[A]\nB=1', ['A']],
    ['text before any section is skipped', 'junk\n[A]\nB=1\n', ['A']],
    ['trailing blanks after a section name', '[A] \t\n', []],
    ['a long line with a newline inside the window', `[A]\nB=${'y'.repeat(2000)}\n`, ['A']],
  ])('%s', (_name, contents, sections) => {
    expect(parseUnitContents(contents)).toEqual({ ok: true, optionSections: sections });
  });
});

describe('parseUnitContents: errors, with go-systemd text', () => {
  it.each<[string, string, string]>([
    ['unclosed section', '[Unit', 'unable to find end of section'],
    ['garbage after a section name', '[Unit] x\n', 'found garbage after section name : "x"'],
    ['garbage is quoted as Go quotes', '[A]\u00a0x\n', 'found garbage after section name : "x"'],
    ['option without =', '[Unit]\nNoEquals', 'EOF'],
    [
      'newline in an option name',
      '[A]\nK\nB=1',
      'unexpected newline encountered while parsing option name',
    ],
    ['a line over 2048 bytes', `[A]\nB=${'y'.repeat(2500)}`, 'line too long (max 2048 bytes)'],
    [
      'an option name over 2048 bytes',
      `[A]\n${'x'.repeat(2100)}=1\n`,
      'line too long (max 2048 bytes)',
    ],
    ['leading junk over 2048 bytes', 'x'.repeat(3000), 'line too long (max 2048 bytes)'],
  ])('%s', (_name, contents, message) => {
    expect(parseUnitContents(contents)).toEqual({
      ok: false,
      message: `invalid unit content: ${message}`,
    });
  });
});
