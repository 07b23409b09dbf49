import { describe, expect, it } from 'vitest';
import { machineConfig } from '../../../test/support/nodeplan-fixtures.js';
import {
  checkNodeReconcilable,
  describeNodeReconcileError,
  truncateReason,
} from './node-reason.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

describe('checkNodeReconcilable: vector B MCD wrapping', () => {
  it('wraps the render-time reason for the node (B1)', () => {
    // GIVEN old has a disk and new has none (docs/reference/vectors.md §B, B1)
    const oldMc = machineConfig('rendered-worker-a');
    const withDisk = {
      ...oldMc,
      spec: {
        config: {
          ignition: { version: GeneratedSpecVersion },
          storage: { disks: [{ device: '/one' }] },
        },
      },
    };
    // WHEN the daemon checks it
    const r = checkNodeReconcilable(withDisk, machineConfig('rendered-worker-b'));
    // THEN the reason is upstream's, byte for byte
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeNodeReconcileError(r.error)).toBe(
      `can't reconcile config rendered-worker-a with rendered-worker-b: configs rendered-worker-a, rendered-worker-b are not reconcilable: new machineconfig "rendered-worker-a" is not reconcilable against "rendered-worker-b": ignition disks section contains changes`,
    );
  });

  it('rejects a new config whose fips differs from the node', () => {
    const r = checkNodeReconcilable(machineConfig('a'), machineConfig('b'), { nodeFips: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeNodeReconcileError(r.error)).toBe(
      "can't reconcile config a with b: detected change to FIPS flag; refusing to modify FIPS on a running cluster",
    );
  });

  it('accepts file-only changes, and skips the FIPS check when the node has no fips file', () => {
    expect(checkNodeReconcilable(machineConfig('a'), machineConfig('b'))).toEqual({
      ok: true,
      value: undefined,
    });
  });
});

describe('truncateReason (%.2000s)', () => {
  it.each([
    ['short', 'short'],
    ['x'.repeat(2000), 'x'.repeat(2000)],
    ['x'.repeat(2001), 'x'.repeat(2000)],
    ['€'.repeat(2001), '€'.repeat(2000)],
    ['😀'.repeat(2001), '😀'.repeat(2000)],
  ])('keeps the first 2000 runes', (input, expected) => {
    expect(truncateReason(input)).toBe(expected);
  });
});
