import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { McoNamespace } from '../../src/api/machineconfiguration/v1/constants.js';
import { loadManifests } from '../../src/shell/load-manifests.js';
import { grantedRows, parseCanIList, rowLines } from './granted-rules.js';

const DeployDir = fileURLToPath(new URL('../../deploy', import.meta.url));

// Runs without a kube-apiserver: the recorded real-server output must still describe deploy/
// (after changing the daemon's RBAC, record again with MCO_ENVTEST_RECORD=1).
describe('the recorded kubectl auth can-i --list of machine-config-daemon', () => {
  it.each([McoNamespace, 'default'])('in %s is what deploy/ grants', (namespace) => {
    const recorded = readFileSync(
      fileURLToPath(
        new URL(`testdata/can-i-list-machine-config-daemon-${namespace}.txt`, import.meta.url),
      ),
      'utf8',
    );
    const granted = grantedRows(
      loadManifests([DeployDir]),
      { namespace: McoNamespace, name: 'machine-config-daemon' },
      namespace,
    );
    expect(rowLines(parseCanIList(recorded))).toEqual(rowLines(granted));
  });

  it('parses kubectl rows: subresources after the group, resource names, empty columns', () => {
    const text = [
      'Resources                                  Non-Resource URLs   Resource Names   Verbs',
      'events                                     []                  []               [create patch]',
      'machineconfignodes.x.io/status             []                  []               [get]',
      'securitycontextconstraints.security.io     []                  [privileged]     [use]',
      '                                           [/healthz]          []               [get]',
    ].join('\n');
    expect(rowLines(parseCanIList(text))).toEqual([
      'events [] [create patch]',
      'machineconfignodes.x.io/status [] [get]',
      'securitycontextconstraints.security.io [privileged] [use]',
    ]);
  });
});
