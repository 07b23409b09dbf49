import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  AdoptAnnotation,
  adoptionOptedIn,
  adoptionTarget,
  needsAdoption,
  planAdoption,
} from './adoption.js';

const pool = (name: string, role: string, config?: string): MachineConfigPool => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfigPool',
  metadata: { name },
  spec: { nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${role}`]: '' } } },
  ...(config === undefined ? {} : { status: { configuration: { name: config } } }),
});

const node = (labels: Record<string, string>): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'old-1', labels },
});

describe('adoption', () => {
  it('is needed only when no annotation, seed file or on-disk config says which config', () => {
    const none = { annotations: {}, hasNodeAnnotationsFile: false, hasOnDiskConfig: false };
    expect(needsAdoption(none)).toBe(true);
    expect(needsAdoption({ ...none, annotations: { [Annotation.desiredConfig]: 'x' } })).toBe(true);
    expect(needsAdoption({ ...none, annotations: { [Annotation.currentConfig]: 'x' } })).toBe(
      false,
    );
    expect(needsAdoption({ ...none, hasNodeAnnotationsFile: true })).toBe(false);
    expect(needsAdoption({ ...none, hasOnDiskConfig: true })).toBe(false);
  });

  it("targets the primary pool's current rendered config (status, not spec)", () => {
    const pools = [
      pool('worker', 'worker', 'rendered-worker-a'),
      pool('infra', 'infra', 'rendered-infra-b'),
    ];
    expect(adoptionTarget(pools, node({ 'node-role.kubernetes.io/worker': '' }))).toEqual({
      ok: true,
      value: { pool: 'worker', config: 'rendered-worker-a' },
    });
    // a custom pool wins over worker, as for the node controller
    expect(
      adoptionTarget(
        pools,
        node({ 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/infra': '' }),
      ),
    ).toEqual({ ok: true, value: { pool: 'infra', config: 'rendered-infra-b' } });
  });

  it('refuses a node no pool selects, a pool not rendered yet, and two custom pools', () => {
    expect(adoptionTarget([pool('worker', 'worker', 'r')], node({}))).toEqual({
      ok: false,
      error: 'node old-1 has no MCO annotations and no MachineConfigPool selects it',
    });
    expect(
      adoptionTarget([pool('worker', 'worker')], node({ 'node-role.kubernetes.io/worker': '' })),
    ).toEqual({
      ok: false,
      error: 'node old-1 has no MCO annotations and pool worker has no current rendered config yet',
    });
    const two = [pool('a', 'a', 'ra'), pool('b', 'b', 'rb')];
    expect(
      adoptionTarget(
        two,
        node({ 'node-role.kubernetes.io/a': '', 'node-role.kubernetes.io/b': '' }),
      ).ok,
    ).toBe(false);
  });

  it('records a match, reports a difference, updates only when opted in', () => {
    const target = { pool: 'worker', config: 'rendered-worker-a' };
    const missing = { kind: 'Missing', path: '/etc/foo' } as const;
    expect(planAdoption({ node: 'n', target, mismatch: undefined, optedIn: false })).toEqual({
      kind: 'record',
      target,
      message:
        'Adopting node n: its disk matches rendered-worker-a of pool worker; recording it without a reboot',
    });
    const report = planAdoption({ node: 'n', target, mismatch: missing, optedIn: false });
    expect(report.kind).toBe('report');
    expect(report.message).toBe(
      'node n is not managed: its disk differs from rendered-worker-a of pool worker: could not stat file "/etc/foo": lstat /etc/foo: no such file or directory; ' +
        `left alone (opt in with mco daemon --adopt or the node annotation ${AdoptAnnotation}=true to apply rendered-worker-a)`,
    );
    expect(planAdoption({ node: 'n', target, mismatch: missing, optedIn: true }).kind).toBe(
      'update',
    );
    // a match is recorded even when opted in: nothing to apply
    expect(planAdoption({ node: 'n', target, mismatch: undefined, optedIn: true }).kind).toBe(
      'record',
    );
  });

  it('opts in by flag or by the annotation set to exactly "true"', () => {
    expect(adoptionOptedIn(true, {})).toBe(true);
    expect(adoptionOptedIn(false, { [AdoptAnnotation]: 'true' })).toBe(true);
    expect(adoptionOptedIn(false, { [AdoptAnnotation]: 'yes' })).toBe(false);
    expect(adoptionOptedIn(false, { [AdoptAnnotation]: 'True' })).toBe(false);
    expect(adoptionOptedIn(false, {})).toBe(false);
  });
});
