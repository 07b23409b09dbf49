import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  kernelArgumentChange,
  missingKernelArguments,
  rpmOstreeKargsArgs,
  runningKernelArguments,
  splitKernelArguments,
} from './kernel-arguments.js';

// docs/reference/vectors.md §D1 (upstream TestKernelAguments): generateKargs(old, new) → `rpm-ostree kargs` arguments.
const D1: readonly (readonly [string[] | undefined, string[] | undefined, string])[] = [
  [undefined, ['hello=world'], '--append=hello=world'],
  [['hello=world'], undefined, '--delete-if-present=hello=world'],
  [
    ['foo', 'bar=1', 'hello=world'],
    ['hello=world'],
    '--delete-if-present=foo --delete-if-present=bar=1 --delete-if-present=hello=world --append=hello=world',
  ],
  [
    ['foo', 'bar=1 hello=world', 'baz'],
    ['foo', 'bar=1', 'hello=world'],
    '--delete-if-present=foo --delete-if-present=bar=1 --delete-if-present=hello=world --delete-if-present=baz --append=foo --append=bar=1 --append=hello=world',
  ],
  [
    [' baz=test bar="hello world"'],
    [' baz=test bar="hello world"', 'foo'],
    '--delete-if-present=baz=test --delete-if-present=bar="hello world" --append=baz=test --append=bar="hello world" --append=foo',
  ],
  [
    ['hugepagesz=1G hugepages=4', 'hugepagesz=2M hugepages=4'],
    ['hugepagesz=1G hugepages=4', 'hugepagesz=2M hugepages=6'],
    '--delete-if-present=hugepagesz=1G --delete-if-present=hugepages=4 --delete-if-present=hugepagesz=2M --delete-if-present=hugepages=4 --append=hugepagesz=1G --append=hugepages=4 --append=hugepagesz=2M --append=hugepages=6',
  ],
];

describe('kernelArgumentChange + rpmOstreeKargsArgs: vector D1', () => {
  it.each(D1)('%j → %j', (oldArgs, newArgs, expected) => {
    // GIVEN the old and new MachineConfig kernelArguments
    // WHEN the change is computed and turned into rpm-ostree arguments
    const args = rpmOstreeKargsArgs(kernelArgumentChange(oldArgs ?? [], newArgs ?? []));
    // THEN they are upstream's, exactly (each element is one argv entry)
    expect(args.join(' ')).toBe(expected);
    expect(args).toEqual(expected.split(/ (?=--)/));
  });

  it.each([
    [[], []],
    [
      ['a', 'b=1'],
      ['a', 'b=1'],
    ],
  ])('no change when the kargs diff flag is false: %j → %j', (oldArgs, newArgs) => {
    expect(kernelArgumentChange(oldArgs, newArgs)).toEqual({ delete: [], append: [] });
    expect(rpmOstreeKargsArgs(kernelArgumentChange(oldArgs, newArgs))).toEqual([]);
  });

  it('reordering is a change: everything is deleted and re-appended', () => {
    expect(kernelArgumentChange(['a', 'b'], ['b', 'a'])).toEqual({
      delete: ['a', 'b'],
      append: ['b', 'a'],
    });
  });
});

describe('splitKernelArguments (the kernel’s next_arg)', () => {
  it.each([
    ['', []],
    ['   ', []],
    ['a b\tc\nd', ['a', 'b', 'c', 'd']],
    ['bar="hello world" x', ['bar="hello world"', 'x']],
    ['"a b" c', ['"a b"', 'c']],
    ['unterminated="a b', ['unterminated="a b']],
    ['a""b c', ['a""b', 'c']],
    ['\fa\vb\r', ['a', 'b']],
  ] as const)('%j → %j', (input, expected) => {
    expect(splitKernelArguments(input)).toEqual(expected);
  });

  const plainArg = fc.stringMatching(/^[A-Za-z0-9_.,=:/-]{1,12}$/);
  const quotedArg = fc
    .tuple(plainArg, fc.stringMatching(/^[A-Za-z0-9 =.-]{0,10}$/))
    .map(([k, v]) => `${k}="${v}"`);
  const arg = fc.oneof(plainArg, quotedArg);
  const space = fc.constantFrom(' ', '\t', '\n', '  ', ' \t ');

  it('round-trips: splitting arguments joined by any whitespace gives them back', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(arg, space)), space, (pairs, lead) => {
        const args = pairs.map(([a]) => a);
        const line = lead + pairs.map(([a, s]) => a + s).join('');
        expect(splitKernelArguments(line)).toEqual(args);
      }),
    );
  });

  it('change then apply: deleting the old split list and appending the new one yields the new list', () => {
    fc.assert(
      fc.property(fc.array(arg, { maxLength: 5 }), fc.array(arg, { maxLength: 5 }), (o, n) => {
        const change = kernelArgumentChange(o, n);
        const cmdline = [...o];
        for (const d of change.delete) {
          const i = cmdline.indexOf(d);
          if (i >= 0) cmdline.splice(i, 1);
        }
        cmdline.push(...change.append);
        expect(cmdline).toEqual(n);
      }),
    );
  });
});

describe('missingKernelArguments / runningKernelArguments', () => {
  it('lists the expected (split) arguments the running command line lacks', () => {
    // GIVEN a config with a grouped entry and a running command line missing one of them
    const missing = missingKernelArguments(
      ['nosmt', 'hugepagesz=1G hugepages=4'],
      ['root=x', 'nosmt', 'hugepages=4'],
    );
    // THEN only the absent one is reported
    expect(missing).toEqual(['hugepagesz=1G']);
  });

  it('firstboot: requested entries present on the command line, in command-line order', () => {
    expect(runningKernelArguments(['foo', 'bar=1', 'a b'], 'BOOT_IMAGE=x bar=1 a b foo\n')).toEqual(
      ['bar=1', 'foo'],
    );
  });
});
