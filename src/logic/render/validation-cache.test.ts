import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { controllerConfig, ign, mc, pool } from '../../../test/support/machine-configs.js';
import { McoVersion } from '../../version.js';
import { renderPool } from './render-pool.js';
import { MachineConfigValidationCache } from './validation-cache.js';

const versioned = (m: MachineConfig, uid: string, rv: string): MachineConfig => ({
  ...m,
  metadata: { ...m.metadata, uid, resourceVersion: rv },
});

const withFile = (name: string, path: string, mode = 420): MachineConfig =>
  mc(name, 'worker', {
    config: ign({ storage: { files: [{ path, contents: { source: 'data:,x' }, mode }] } }),
  });

describe('MachineConfigValidationCache', () => {
  it('validates a uid and resourceVersion once, and again for a new version', () => {
    const cache = new MachineConfigValidationCache();
    const v1 = versioned(withFile('a', '/etc/a'), 'u1', '5');
    const first = cache.validate(v1);
    expect(first.ok).toBe(true);
    expect(cache.validate({ ...v1 })).toBe(first);
    const v2 = versioned(withFile('a', '/etc/a', 0o4755), 'u1', '6');
    const second = cache.validate(v2);
    expect(second).not.toBe(first);
    expect(second).toMatchObject({ ok: false, error: { kind: 'InvalidMode', path: '/etc/a' } });
    expect(cache.validate(v2)).toBe(second);
    expect(cache.size).toBe(1);
  });

  it('does not keep objects without a uid or resourceVersion', () => {
    const cache = new MachineConfigValidationCache();
    const bare = withFile('a', '/etc/a');
    expect(cache.validate(bare)).not.toBe(cache.validate(bare));
    expect(cache.size).toBe(0);
  });

  it('forgets MachineConfigs that are no longer listed', () => {
    const cache = new MachineConfigValidationCache();
    const a = versioned(withFile('a', '/etc/a'), 'ua', '1');
    const b = versioned(withFile('b', '/etc/b'), 'ub', '1');
    cache.validate(a);
    cache.validate(b);
    cache.retain([b]);
    expect(cache.size).toBe(1);
    const kept = cache.validate(b);
    expect(cache.validate(b)).toBe(kept);
  });

  it('renders the same pool with and without the cache, and from a warm one', () => {
    const configs = [
      versioned(withFile('00-a', '/etc/a'), 'ua', '1'),
      versioned(withFile('10-b', '/etc/b'), 'ub', '1'),
    ];
    const input = {
      pool: pool('worker'),
      configs,
      controllerConfig: controllerConfig('image'),
      version: McoVersion,
      enforceVersionGates: false,
    };
    const cache = new MachineConfigValidationCache();
    const plain = renderPool(input);
    const cold = renderPool({ ...input, validations: cache });
    const warm = renderPool({ ...input, validations: cache });
    expect(cold).toEqual(plain);
    expect(warm).toEqual(plain);
    expect(cache.size).toBe(2);
    // A bad version of one config fails the render even though the old one was kept.
    const bad = renderPool({
      ...input,
      configs: [configs[0]!, versioned(withFile('10-b', '/etc/b', 0o4755), 'ub', '2')],
      validations: cache,
    });
    expect(bad.ok).toBe(false);
  });
});
