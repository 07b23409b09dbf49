import { describe, expect, it } from 'vitest';
import { measureJson } from './json-extent.js';

const unlimited = { maxDepth: Infinity, maxBytes: Infinity };

describe('measureJson', () => {
  it('measures depth (objects and arrays; scalars are 0) and about the JSON size', () => {
    expect(measureJson('x', unlimited)).toEqual({ depth: 0, bytes: 3 });
    expect(measureJson({}, unlimited)).toEqual({ depth: 1, bytes: 1 });
    const value = { a: [1, { b: 'cd' }], e: null, f: true };
    const measured = measureJson(value, unlimited);
    expect(measured.depth).toBe(3);
    expect(Math.abs(measured.bytes - JSON.stringify(value).length)).toBeLessThanOrEqual(2);
  });

  it('passes the depth limit on the level past it', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 500; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    expect(measureJson(deep, { maxDepth: 500, maxBytes: Infinity }).exceeded).toBeUndefined();
    expect(measureJson([deep], { maxDepth: 500, maxBytes: Infinity })).toMatchObject({
      exceeded: 'depth',
      depth: 501,
    });
  });

  it('walks a million levels without the call stack', () => {
    let deep: unknown = null;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(measureJson(deep, unlimited).depth).toBe(1_000_000);
  });

  it('counts a shared subtree each time it appears, and stops at the byte limit', () => {
    let shared: unknown = 'x'.repeat(1000);
    // 2^40 copies of the string once written out
    for (let i = 0; i < 40; i++) shared = [shared, shared];
    const started = performance.now();
    const measured = measureJson(shared, { maxDepth: 100, maxBytes: 3 * 1024 * 1024 });
    expect(measured.exceeded).toBe('bytes');
    expect(measured.bytes).toBeLessThan(3 * 1024 * 1024 + 2000);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('ends on a cycle (a YAML alias to its own ancestor) at the depth limit', () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(measureJson(cycle, { maxDepth: 500, maxBytes: Infinity }).exceeded).toBe('depth');
  });

  it('refuses a huge array before queueing its items', () => {
    const wide = new Array<number>(5_000_000).fill(0);
    expect(measureJson(wide, { maxDepth: 10, maxBytes: 1_000_000 })).toMatchObject({
      exceeded: 'bytes',
      depth: 1,
    });
  });
});
