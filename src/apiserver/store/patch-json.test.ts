import { describe, expect, it } from 'vitest';
import { StatusError } from '../../api/meta/v1/status-error.js';
import { measureJson } from '../../lib/json-extent.js';
import { applyJsonPatch } from './patch-json.js';

function failure(target: unknown, ops: unknown): unknown {
  try {
    applyJsonPatch(target, ops);
  } catch (e) {
    if (e instanceof StatusError) return e.toStatus();
    throw e;
  }
  throw new Error('expected the patch to fail');
}

const depthOf = (v: unknown): number =>
  measureJson(v, { maxDepth: Infinity, maxBytes: Infinity }).depth;

/** `n` nested arrays around a string. */
function nested(n: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

describe('applyJsonPatch: bounds', () => {
  it('applies ordinary operations as before, without touching the target', () => {
    const target = { spec: { a: 1, list: [1, 2] } };
    const patched = applyJsonPatch(target, [
      { op: 'add', path: '/spec/b', value: { c: [true] } },
      { op: 'copy', from: '/spec/list', path: '/spec/copy' },
      { op: 'move', from: '/spec/a', path: '/spec/moved' },
      { op: 'remove', path: '/spec/list/0' },
      { op: 'test', path: '/spec/moved', value: 1 },
    ]);
    expect(patched).toEqual({
      spec: { b: { c: [true] }, copy: [1, 2], moved: 1, list: [2] },
    });
    expect(target).toEqual({ spec: { a: 1, list: [1, 2] } });
  });

  it('refuses more than 10,000 operations with 413', () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    expect(failure({ a: 1 }, ops)).toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message:
        'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
    expect(applyJsonPatch({ a: 1 }, ops.slice(1))).toEqual({ a: 1 });
  });

  it('refuses copies that double the document past 3 MiB together (422)', () => {
    // each copy doubles /d: 1 KiB becomes 4 MiB after 12 of them
    const ops = Array.from({ length: 30 }, (_, i) => ({
      op: 'copy',
      from: '/d',
      path: `/d/${i + 1}`,
    }));
    const started = performance.now();
    const status = failure({ d: ['x'.repeat(1024)] }, ops) as { code: number; details: unknown };
    expect(performance.now() - started).toBeLessThan(2000);
    expect(status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      details: {
        causes: [
          {
            reason: 'UnexpectedServerResponse',
            message: expect.stringMatching(
              /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/,
            ) as string,
          },
        ],
      },
    });
    // a few copies stay well within the budget
    expect(depthOf(applyJsonPatch({ d: ['x'.repeat(1024)] }, ops.slice(0, 8)))).toBeGreaterThan(1);
  });

  it('refuses moves and copies that nest the document past 500 levels (422), before they run', () => {
    // /a is 300 deep; moving /b under the deepest point of /a makes 600
    let deepestPath = '/a';
    for (let i = 0; i < 299; i++) deepestPath += '/0';
    const target = { a: nested(300), b: nested(300) };
    expect(failure(target, [{ op: 'move', from: '/b', path: `${deepestPath}/-` }])).toMatchObject({
      code: 422,
      details: {
        causes: [{ message: 'the patched object would nest deeper than 500 levels' }],
      },
    });
    expect(failure(target, [{ op: 'copy', from: '/b', path: `${deepestPath}/-` }])).toMatchObject({
      code: 422,
    });
    expect(
      failure(target, [{ op: 'add', path: `${deepestPath}/-`, value: nested(250) }]),
    ).toMatchObject({ code: 422 });
    // copying itself into itself, again and again: the depth doubles each time
    const selfCopies = Array.from({ length: 40 }, () => ({ op: 'copy', from: '/a', path: '/a/0' }));
    expect(failure({ a: nested(20) }, selfCopies)).toMatchObject({ code: 422 });
  });

  it('measures again when the bound is loose: moving a deep subtree down and back passes', () => {
    // each move down raises the bound by two, each move back leaves it: past 500 after five rounds
    const round = [
      { op: 'move', from: '/a', path: '/b/c/x' },
      { op: 'move', from: '/b/c/x', path: '/a' },
    ];
    const ops = Array.from({ length: 12 }, () => round).flat();
    const patched = applyJsonPatch({ a: nested(490), b: { c: {} } }, ops);
    expect(depthOf(patched)).toBe(491);
  });
});
