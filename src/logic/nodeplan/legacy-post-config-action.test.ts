import { describe, expect, it } from 'vitest';
import { changedFilePaths } from './config-diffs.js';
import { ignFile, nodeConfig } from '../../../test/support/nodeplan-fixtures.js';
import {
  calculateLegacyPostConfigChangeAction,
  legacyActionFromChangedFiles,
} from './legacy-post-config-action.js';
import { machineConfigDiff } from './machine-config-diff.js';
import { D3, d3Config as config } from '../../../test/support/nodeplan-d3-vectors.js';

describe('calculateLegacyPostConfigChangeAction: vector D3', () => {
  it.each(D3)('%s → %j', (_name, oldSide, newSide, expected) => {
    // GIVEN two configs built like upstream's fixtures
    const oldConfig = config('old', oldSide);
    const newConfig = config('new', newSide);
    // WHEN the firstboot (legacy) action is computed from the diff and the changed paths
    const diff = machineConfigDiff(oldConfig, newConfig, { forceFile: false });
    const changed = changedFilePaths(oldConfig.ignition, newConfig.ignition);
    // THEN it is upstream's action
    expect(calculateLegacyPostConfigChangeAction(diff, changed, false)).toEqual(expected);
  });
});

describe('calculateLegacyPostConfigChangeAction: other rules', () => {
  const same = config('same', { files: [ignFile('/etc/random-reboot-file', 'test\n')] });
  const noChange = machineConfigDiff(same, same, { forceFile: false });

  it('reboots when the forcefile exists, whatever the diff', () => {
    expect(calculateLegacyPostConfigChangeAction(noChange, [], true)).toEqual(['reboot']);
  });

  it('reboots on a unit change (unlike the policy path)', () => {
    const withUnit = nodeConfig('u', {
      files: [ignFile('/etc/random-reboot-file', 'test\n')],
      units: [{ name: 'a.service', contents: 'x' }],
    });
    const diff = machineConfigDiff(same, withUnit, { forceFile: false });
    expect(calculateLegacyPostConfigChangeAction(diff, [], false)).toEqual(['reboot']);
  });

  it.each([
    [['/etc/nmstate/openshift/eth0.yml'], ['none']],
    [['/etc/nmstate/openshift/sub/eth0.yml'], ['reboot']],
    [['/etc/containers/registries.d/quay.yaml'], ['reload crio']],
    [['/etc/containers/registries.d/sub/quay.yaml'], ['reboot']],
    [
      [
        '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
        '/etc/containers/policy.json',
      ],
      ['restart crio'],
    ],
    [
      [
        '/etc/containers/policy.json',
        '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
      ],
      ['restart crio'],
    ],
    [['/etc/containers/policy.json', '/etc/other'], ['reboot']],
    [[], ['none']],
  ] as const)('changed paths %j → %j (parent directory only, not deeper)', (paths, expected) => {
    expect(legacyActionFromChangedFiles(paths)).toEqual(expected);
  });
});
