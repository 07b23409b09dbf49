/**
 * The API server's size limits, through the ResourceStore over a given Storage: one vitest suite
 * that every backend runs (memory and SQLite in the unit tests, etcd in test/integration), so the
 * answers are the same whatever stores the objects. Kubernetes' own wording where it has one
 * (ConfigMap, Secret, annotations); the stored-object limit is a 413 that names it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/ports/storage.js';
import { MaxStoredObjectBytes } from '../../src/apiserver/request-limits.js';
import { admin, failure, newTestStore, type TestStore } from './apiserver-test-store.js';

const MiB = 1024 * 1024;
const statusWrite = { ...admin, subresource: 'status' } as const;

export function describeSizeLimits(name: string, open: () => Promise<Storage>): void {
  describe(`size limits: ${name}`, () => {
    let t: TestStore | undefined;
    afterEach(async () => {
      await t?.storage.close();
      t = undefined;
    });
    async function store(): Promise<TestStore> {
      t = await newTestStore(await open());
      return t;
    }
    const configMap = (n: string, body: Record<string, unknown>) => ({
      metadata: { name: n },
      ...body,
    });

    it('a ConfigMap holds 1 MiB of data + binaryData, one byte more is 422 as Kubernetes says it', async () => {
      const { store: s, rt } = await store();
      const cm = rt('ConfigMap');
      // 1 MiB exactly: text in UTF-8 bytes (é is two), binary decoded
      const data = { a: 'é'.repeat(MiB / 4), b: 'x'.repeat(MiB / 4) };
      const binaryData = { c: Buffer.alloc(MiB / 4, 1).toString('base64') };
      await s.create(cm, 'default', configMap('at-limit', { data, binaryData }), admin);
      const over = await failure(
        s.create(
          cm,
          'default',
          configMap('over', { data: { ...data, d: 'x' }, binaryData }),
          admin,
        ),
      );
      expect(over).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'ConfigMap "over" is invalid: []: Too long: must have at most 1048576 bytes',
        reason: 'Invalid',
        details: {
          name: 'over',
          kind: 'ConfigMap',
          causes: [
            {
              reason: 'FieldValueTooLong',
              message: 'Too long: must have at most 1048576 bytes',
              field: '[]',
            },
          ],
        },
        code: 422,
      });
      // an update is held to the same
      const current = await s.get(cm, 'default', 'at-limit');
      expect(
        await failure(
          s.update(cm, 'default', 'at-limit', { ...current, data: { ...data, e: 'y' } }, admin),
        ),
      ).toMatchObject({ code: 422 });
    });

    it('a Secret holds 1 MiB of decoded data, stringData counted; one byte more is 422', async () => {
      const { store: s, rt } = await store();
      const secret = rt('Secret');
      const half = Buffer.alloc(MiB / 2, 7).toString('base64');
      await s.create(
        secret,
        'default',
        {
          metadata: { name: 'at-limit' },
          data: { a: half },
          stringData: { b: 'x'.repeat(MiB / 2) },
        },
        admin,
      );
      expect(
        await failure(
          s.create(
            secret,
            'default',
            {
              metadata: { name: 'over' },
              data: { a: half },
              stringData: { b: 'x'.repeat(MiB / 2 + 1) },
            },
            admin,
          ),
        ),
      ).toMatchObject({
        code: 422,
        message: 'Secret "over" is invalid: data: Too long: must have at most 1048576 bytes',
        details: { causes: [{ reason: 'FieldValueTooLong', field: 'data' }] },
      });
    });

    it('annotations hold 256 KiB of keys and values together; one byte more is 422', async () => {
      const { store: s, rt } = await store();
      const cm = rt('ConfigMap');
      const annotations = (extra: number) => ({ a: 'v'.repeat(256 * 1024 - 1 + extra) });
      await s.create(
        cm,
        'default',
        { metadata: { name: 'at-limit', annotations: annotations(0) } },
        admin,
      );
      expect(
        await failure(
          s.create(
            cm,
            'default',
            { metadata: { name: 'over', annotations: annotations(1) } },
            admin,
          ),
        ),
      ).toMatchObject({
        code: 422,
        message:
          'ConfigMap "over" is invalid: metadata.annotations: Too long: must have at most 262144 bytes',
      });
    });

    it('an object of 2 MiB is refused with a 413 that names the limit, and nothing is stored', async () => {
      const { store: s, rt, storage } = await store();
      const nodes = rt('Node');
      const node = (n: string, bytes: number) => ({
        metadata: { name: n },
        status: { conditions: [{ type: 'Ready', status: 'True', message: 'm'.repeat(bytes) }] },
      });
      const before = await storage.currentRevision();
      const status = await failure(s.create(nodes, undefined, node('big', 2 * MiB), admin));
      expect(status).toMatchObject({
        code: 413,
        reason: 'RequestEntityTooLarge',
        message: expect.stringMatching(
          /^Request entity too large: nodes "big" would take \d+ bytes in storage; limit is 1572864$/,
        ) as string,
      });
      expect(await storage.currentRevision()).toBe(before);
      // dryRun predicts it
      expect(
        await failure(s.create(nodes, undefined, node('big', 2 * MiB), { ...admin, dryRun: true })),
      ).toMatchObject({ code: 413 });
      // just under the limit is stored; growing it past the limit by update or patch is refused
      const fits = MaxStoredObjectBytes - 4096;
      const created = await s.create(nodes, undefined, node('near', fits), admin);
      expect((await s.get(nodes, undefined, 'near')).metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );
      const grown = node('near', fits + 8192);
      expect(
        await failure(
          s.update(nodes, undefined, 'near', { ...grown, metadata: created.metadata }, statusWrite),
        ),
      ).toMatchObject({ code: 413 });
      expect(
        await failure(
          s.patch(
            nodes,
            undefined,
            'near',
            { type: 'merge', body: JSON.stringify({ status: grown.status }) },
            statusWrite,
          ),
        ),
      ).toMatchObject({ code: 413 });
      expect((await s.get(nodes, undefined, 'near')).metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );
    });

    it('counts the stored bytes, not the characters: escapes and multi-byte text count in full', async () => {
      const { store: s, rt } = await store();
      // 300,000 control characters: 300 kB of data, 1.8 MB once JSON escapes them
      const data = { a: '\u0001'.repeat(300_000) };
      expect(
        await failure(s.create(rt('ConfigMap'), 'default', configMap('escaped', { data }), admin)),
      ).toMatchObject({ code: 413 });
    });
  });
}
