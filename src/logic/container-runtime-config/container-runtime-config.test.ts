import { describe, expect, it } from 'vitest';
import type { ContainerRuntimeConfig } from '../../api/machineconfiguration/v1/container-runtime-config.js';
import { parseDataUrl } from '../../ignition/data-url.js';
import { generateContainerRuntimeIgnition } from './generate-container-runtime-config.js';
import { quantityValue } from './quantity.js';
import {
  describeContainerRuntimeConfigError,
  validateContainerRuntimeConfig,
} from './validate-container-runtime-config.js';

function crc(c: ContainerRuntimeConfig['spec']['containerRuntimeConfig']): ContainerRuntimeConfig {
  return { metadata: { name: 'c' }, spec: { containerRuntimeConfig: c } };
}

describe('quantityValue', () => {
  it.each([
    ['10G', 10_000_000_000],
    ['8Ki', 8192],
    ['8k', 8000],
    ['0k', 0],
    ['1.5Gi', 1_610_612_736],
    ['1e3', 1000],
    [2048, 2048],
    ['x', undefined],
  ])('%j → %s', (q, v) => {
    expect(quantityValue(q)).toBe(v);
  });
});

describe('validateContainerRuntimeConfig', () => {
  it.each([
    [{ pidsLimit: 2048 }, 'ok'],
    [{ pidsLimit: 0 }, 'ok'],
    [{ pidsLimit: 10 }, 'invalid PidsLimit 10'],
    [{ pidsLimit: -1 }, 'invalid PidsLimit -1'],
    [{ logSizeMax: '8Ki' }, 'invalid LogSizeMax "8Ki", cannot be less than 8kB'],
    [{ logSizeMax: '9Ki' }, 'ok'],
    [{ logSizeMax: '0' }, 'ok'],
    [{ overlaySize: '-1G' }, 'invalid overlaySize "-1G", cannot be less than 0'],
    [
      { logLevel: 'verbose' },
      'invalid LogLevel "verbose", must be one of error, fatal, panic, warn, info, debug, or trace',
    ],
    [{ logLevel: 'trace' }, 'ok'],
    [{ defaultRuntime: 'kata' }, 'invalid DefaultRuntime "kata", must be one of crun, runc'],
    [{ defaultRuntime: 'runc' }, 'ok'],
  ] as const)('%j → %s', (c, expected) => {
    const r = validateContainerRuntimeConfig(crc(c));
    expect(r.ok ? 'ok' : describeContainerRuntimeConfigError(r.error)).toBe(expected);
  });
});

describe('generateContainerRuntimeIgnition', () => {
  it('one CRI-O drop-in per field and storage.conf, sorted by path', () => {
    const ign = generateContainerRuntimeIgnition(
      crc({
        pidsLimit: 2048,
        logLevel: 'debug',
        logSizeMax: '0',
        defaultRuntime: 'runc',
        overlaySize: '8G',
        additionalImageStores: [{ path: '/mnt/a' }],
      }),
    ) as { storage: { files: { path: string; contents: { source: string } }[] } };
    const text = Object.fromEntries(
      ign.storage.files.map((f) => {
        const u = parseDataUrl(f.contents.source);
        return [f.path, u.ok ? new TextDecoder().decode(u.value.data) : 'BAD'];
      }),
    );
    expect(text).toEqual({
      '/etc/containers/storage.conf':
        '[storage]\n  driver = "overlay"\n  runroot = "/var/run/containers/storage"\n  graphroot = "/var/lib/containers/storage"\n  [storage.options]\n    additionalimagestores = ["/mnt/a"]\n    size = "8G"\n',
      '/etc/crio/crio.conf.d/01-ctrcfg-defaultRuntime':
        '[crio]\n  [crio.runtime]\n    default_runtime = "runc"\n',
      '/etc/crio/crio.conf.d/01-ctrcfg-logLevel':
        '[crio]\n  [crio.runtime]\n    log_level = "debug"\n',
      '/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit':
        '[crio]\n  [crio.runtime]\n    pids_limit = 2048\n',
    });
    expect(ign.storage.files.map((f) => f.path)).toEqual(Object.keys(text).sort());
  });
});
