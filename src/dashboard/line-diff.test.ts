import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineDiff } from './line-diff.js';

describe('lineDiff', () => {
  it.each([
    {
      name: 'equal',
      before: 'a\nb\n',
      after: 'a\nb\n',
      want: [
        ['same', 'a', 'a'],
        ['same', 'b', 'b'],
      ],
    },
    { name: 'added file', before: '', after: 'x\n', want: [['added', undefined, 'x']] },
    { name: 'removed file', before: 'x\n', after: '', want: [['removed', 'x', undefined]] },
    {
      name: 'one line edited',
      before: 'server a iburst\nmakestep 1 3\n',
      after: 'server b iburst\nmakestep 1 3\n',
      want: [
        ['changed', 'server a iburst', 'server b iburst'],
        ['same', 'makestep 1 3', 'makestep 1 3'],
      ],
    },
    {
      name: 'insertion in the middle',
      before: 'a\nc\n',
      after: 'a\nb\nc\n',
      want: [
        ['same', 'a', 'a'],
        ['added', undefined, 'b'],
        ['same', 'c', 'c'],
      ],
    },
    {
      name: 'two removed, one added',
      before: 'a\nx\ny\nb',
      after: 'a\nz\nb',
      want: [
        ['same', 'a', 'a'],
        ['changed', 'x', 'z'],
        ['removed', 'y', undefined],
        ['same', 'b', 'b'],
      ],
    },
  ])('$name', ({ before, after, want }) => {
    expect(lineDiff(before, after).map((r) => [r.kind, r.left, r.right])).toEqual(want);
  });

  it('left and right columns give back the two texts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 12 }),
        fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 12 }),
        (a, b) => {
          const rows = lineDiff(a.map((l) => `${l}\n`).join(''), b.map((l) => `${l}\n`).join(''));
          expect(rows.flatMap((r) => (r.left === undefined ? [] : [r.left]))).toEqual(a);
          expect(rows.flatMap((r) => (r.right === undefined ? [] : [r.right]))).toEqual(b);
        },
      ),
    );
  });
});
