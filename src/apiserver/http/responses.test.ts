import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resource-store.js';
import { shareObject } from '../shared-objects.js';
import { jsonListResponse } from './responses.js';

/** Objects with text of every width UTF-8 has (ASCII, 2, 3 and 4 bytes), shared or not. */
const item = fc
  .record({
    name: fc.string({ unit: 'binary', maxLength: 12 }),
    data: fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 20 })),
    shared: fc.boolean(),
  })
  .map(({ name, data, shared }) => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data } as KubeObject;
    return shared ? shareObject(obj) : obj;
  });

describe('jsonListResponse', () => {
  it('is byte for byte JSON.stringify of the list', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 6 }), async (items) => {
        const list = {
          kind: 'ConfigMapList',
          apiVersion: 'v1',
          metadata: { resourceVersion: '7', continue: 'é' },
        };
        const response = jsonListResponse(list, items);
        const bytes = new Uint8Array(await response.arrayBuffer());
        expect(Buffer.from(bytes).equals(Buffer.from(JSON.stringify({ ...list, items })))).toBe(
          true,
        );
        expect(response.headers.get('Content-Type')).toBe('application/json');
      }),
      { numRuns: 300 },
    );
  });
});
