import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterLayout } from './cluster-layout.js';
import { readClusterRecord, resolveClusterShape, type ClusterRecord } from './cluster-record.js';
import type { StartOptions } from './start-options.js';

const dir = mkdtempSync(join(tmpdir(), 'mco-cluster-record-'));
const layout = clusterLayout(dir);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const saved: ClusterRecord = { masters: 1, workers: 2, portBase: 30_000, bootImage: 'img' };
const options = (o: Partial<StartOptions>): StartOptions => ({
  dataDir: dir,
  masters: 1,
  workers: 2,
  portBase: 26443,
  explicit: new Set(),
  ...o,
});

describe('the cluster record', () => {
  it('reads a record, and nothing for a folder without one', () => {
    expect(readClusterRecord(clusterLayout(join(dir, 'absent')))).toBeUndefined();
    writeFileSync(layout.clusterFile, JSON.stringify(saved));
    expect(readClusterRecord(layout)).toEqual(saved);
  });

  it.each([
    ['{"masters": 1', 'not JSON'],
    ['null', 'not an object'],
    ['[1]', 'not an object'],
    [
      '{"masters": 0, "workers": 2, "portBase": 1, "bootImage": "i"}',
      'masters is not a whole number ≥ 1',
    ],
    [
      '{"masters": 1, "workers": -1, "portBase": 1, "bootImage": "i"}',
      'workers is not a whole number ≥ 0',
    ],
    [
      '{"masters": 1, "workers": 2, "portBase": "1", "bootImage": "i"}',
      'portBase is not a whole number ≥ 1',
    ],
    ['{"masters": 1, "workers": 2, "portBase": 1}', 'bootImage is not a pull spec'],
  ])('refuses %s: %s', (text, why) => {
    writeFileSync(layout.clusterFile, text);
    expect(() => readClusterRecord(layout)).toThrow(
      `${layout.clusterFile} is not a cluster record (${why}): restore it, or remove the data folder to start over`,
    );
  });

  it('resumes with the saved shape, taking only the flags given, growing but never shrinking', () => {
    expect(resolveClusterShape(options({ masters: 3 }), undefined)).toEqual({
      masters: 3,
      workers: 2,
      portBase: 26443,
    });
    expect(resolveClusterShape(options({}), saved)).toEqual({
      masters: 1,
      workers: 2,
      portBase: 30_000,
    });
    expect(
      resolveClusterShape(options({ workers: 4, explicit: new Set(['workers']) }), saved),
    ).toEqual({ masters: 1, workers: 4, portBase: 30_000 });
    expect(() =>
      resolveClusterShape(options({ workers: 1, explicit: new Set(['workers']) }), saved),
    ).toThrow('it can grow, not shrink');
    const far = { ...saved, workers: 8 };
    expect(() =>
      resolveClusterShape(options({ portBase: 65_521, explicit: new Set(['portBase']) }), far),
    ).toThrow('--port-base 65521: a box of 9 nodes uses 16 ports');
  });
});
