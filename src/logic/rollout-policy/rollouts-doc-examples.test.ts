/** Every policy docs/rollouts.md shows is one the controller accepts. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRolloutPolicy } from './parse-rollout-policy.js';

const doc = readFileSync(new URL('../../../docs/rollouts.md', import.meta.url), 'utf8');
const annotated = [...doc.matchAll(/rollout\.mco\.dev\/policy='(\{[\s\S]*?\})'/g)].map(
  (m) => m[1] ?? '',
);
const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((m) =>
  (m[1] ?? '').trim().split(/\n(?=\{)/),
);

describe('docs/rollouts.md examples', () => {
  it('has examples', () => {
    expect(annotated.length).toBeGreaterThan(0);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });
  it.each([...annotated, ...blocks])('parses %s', (text) => {
    const r = parseRolloutPolicy(text);
    expect(r.ok ? '' : r.error).toBe('');
  });
});
