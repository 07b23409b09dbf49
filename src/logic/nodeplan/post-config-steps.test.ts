import { describe, expect, it } from 'vitest';
import { canonicalizeKernelType, kernelSwitchArgs, revertKernelSwapArgs } from './kernel-type.js';
import { postConfigSteps } from './post-config-steps.js';

describe('postConfigSteps', () => {
  it.each([
    [['reboot', 'none'], [{ kind: 'reboot', reason: 'Node will reboot into config rendered-w-2' }]],
    [['none'], [{ kind: 'skipReboot' }]],
    [['reload crio'], [{ kind: 'reload', unit: 'crio' }]],
    [
      ['restart crio'],
      [{ kind: 'updateCaTrust' }, { kind: 'restart', unit: 'crio', updateCaTrustFallback: false }],
    ],
  ] as const)('legacy %j', (actions, expected) => {
    expect(postConfigSteps({ kind: 'legacy', actions }, 'rendered-w-2')).toEqual(expected);
  });

  it('policies: each action in order; Reboot alone wins', () => {
    // GIVEN policy actions as calculatePostConfigChangeActions returns them
    const steps = postConfigSteps(
      {
        kind: 'policies',
        actions: [
          { type: 'Drain' },
          { type: 'Special' },
          { type: 'Restart', restart: { serviceName: 'coreos-update-ca-trust.service' } },
          { type: 'Restart', restart: { serviceName: 'crio.service' } },
          { type: 'DaemonReload' },
          { type: 'Reload', reload: { serviceName: 'kubelet.service' } },
          { type: 'None' },
        ],
      },
      'c',
    );
    // THEN
    expect(steps).toEqual([
      { kind: 'drained' },
      { kind: 'reload', unit: 'crio' },
      { kind: 'restart', unit: 'coreos-update-ca-trust.service', updateCaTrustFallback: true },
      { kind: 'restart', unit: 'crio.service', updateCaTrustFallback: false },
      { kind: 'daemonReload' },
      { kind: 'reload', unit: 'kubelet.service' },
      { kind: 'skipReboot' },
    ]);
    expect(
      postConfigSteps({ kind: 'policies', actions: [{ type: 'None' }, { type: 'Reboot' }] }, 'c'),
    ).toEqual([{ kind: 'reboot', reason: 'Node will reboot into config c' }]);
  });
});

describe('kernel types', () => {
  it.each([
    [undefined, 'default'],
    ['', 'default'],
    ['default', 'default'],
    ['realtime', 'realtime'],
    ['64k-pages', '64k-pages'],
    ['RealTime', 'default'],
  ] as const)('canonicalizeKernelType(%j) = %j', (input, expected) => {
    expect(canonicalizeKernelType(input)).toBe(expected);
  });

  it('switch arguments per type and architecture', () => {
    expect(kernelSwitchArgs('default', 'amd64')).toEqual({ ok: true, value: undefined });
    expect(kernelSwitchArgs('64k-pages', 'arm64')).toEqual({
      ok: true,
      value: [
        'override',
        'remove',
        'kernel',
        'kernel-core',
        'kernel-modules',
        'kernel-modules-core',
        'kernel-modules-extra',
        '--install',
        'kernel-64k-core',
        '--install',
        'kernel-64k-modules',
        '--install',
        'kernel-64k-modules-core',
        '--install',
        'kernel-64k-modules-extra',
      ],
    });
    expect(kernelSwitchArgs('64k-pages', 'amd64')).toEqual({
      ok: false,
      error: { kind: 'SixtyFourKNotSupported' },
    });
  });

  it('reverts a kernel swap only when both removals and kernel layers exist', () => {
    expect(
      revertKernelSwapArgs(['kernel', 'kernel-core'], ['kernel-rt-core', 'kernel-rt-modules']),
    ).toEqual([
      'override',
      'reset',
      'kernel',
      'kernel-core',
      '--uninstall',
      'kernel-rt-core',
      '--uninstall',
      'kernel-rt-modules',
    ]);
    expect(revertKernelSwapArgs(['kernel'], [])).toBeUndefined();
    expect(revertKernelSwapArgs([], ['kernel-64k-core'])).toBeUndefined();
  });
});
