import { describe, expect, it } from 'vitest';
import {
  crashPointsAt,
  crashPointsFrom,
  crashTargetName,
  parseCrashTarget,
  parseCrashTargets,
} from './crash-points.js';

describe('crash points', () => {
  it.each([
    ['write-file', { step: 'write-file', occurrence: 1 }],
    ['write-file:3', { step: 'write-file', occurrence: 3 }],
    [' journal-os:1 ', { step: 'journal-os', occurrence: 1 }],
    ['write-file:0', undefined],
    ['Write', undefined],
    ['a:b', undefined],
  ])('parseCrashTarget(%j)', (text, expected) => {
    expect(parseCrashTarget(text)).toEqual(expected);
  });

  it('parses a list, and refuses it when one entry is malformed', () => {
    expect(parseCrashTargets('a:2,b, c:1,')).toEqual([
      { step: 'a', occurrence: 2 },
      { step: 'b', occurrence: 1 },
      { step: 'c', occurrence: 1 },
    ]);
    expect(parseCrashTargets('a,B')).toBeUndefined();
  });

  it('fires at the n-th time a step is reached, once per target, and skips spent targets', () => {
    const fired: string[] = [];
    const points = crashPointsAt(parseCrashTargets('w:2,x:1,y:1') ?? [], {
      isSpent: (t) => t.step === 'y',
      kill: (t) => fired.push(crashTargetName(t)),
    });
    for (const s of ['w', 'x', 'w', 'w', 'y', 'x']) points.reached(s);
    expect(fired).toEqual(['x:1', 'w:2']);
  });

  it('reads targets at every point and counts steps from the start, armed or not', () => {
    const fired: string[] = [];
    let targets = parseCrashTargets('') ?? [];
    const spent = new Set<string>();
    const points = crashPointsFrom(() => targets, {
      isSpent: (t) => spent.has(crashTargetName(t)),
      kill: (t) => {
        spent.add(crashTargetName(t));
        fired.push(crashTargetName(t));
      },
    });
    points.reached('w');
    targets = parseCrashTargets('w:1,w:2,x') ?? [];
    for (const s of ['w', 'x', 'x', 'w']) points.reached(s);
    expect(fired).toEqual(['w:2', 'x:1']);
  });
});
