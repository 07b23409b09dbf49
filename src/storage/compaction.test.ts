import { describe, expect, it } from 'vitest';
import { MemoryStorage } from './memory-storage.js';
import { compactHistory, DefaultRetainedRevisions } from './compaction.js';

async function withRevisions(n: number): Promise<MemoryStorage> {
  const storage = new MemoryStorage();
  for (let i = 0; i < n; i++)
    await storage.create(`/registry/core/configmaps/default/c${String(i)}`, '{}');
  return storage;
}

describe('compactHistory', () => {
  it('keeps the newest `keep` revisions', async () => {
    const storage = await withRevisions(30);
    expect(await compactHistory(storage, 10)).toBe(20);
    expect(await storage.compactedRevision()).toBe(20);
  });

  it('does nothing while history is shorter than the window, or already compacted', async () => {
    const storage = await withRevisions(30);
    expect(await compactHistory(storage, 50)).toBeUndefined();
    expect(await compactHistory(storage, 10)).toBe(20);
    expect(await compactHistory(storage, 10)).toBeUndefined();
    expect(await storage.compactedRevision()).toBe(20);
  });

  it('keeps 10,000 revisions by default', async () => {
    expect(DefaultRetainedRevisions).toBe(10_000);
    const storage = await withRevisions(5);
    expect(await compactHistory(storage)).toBeUndefined();
  });
});
