import { describe, expect, it } from 'vitest';
import { ignFile, ignition } from '../../../test/support/nodeplan-fixtures.js';
import { planStaleRemovals, systemdDropinOf } from './stale-removals.js';

describe('planStaleRemovals', () => {
  it('removes files, dropins and units the new config dropped, keeping certificates', () => {
    // GIVEN an old config with certs, a file that becomes a dropin, and units with dropins
    const oldIgn = ignition({
      files: [
        ignFile('/etc/kept', 'k'),
        ignFile('/etc/gone', 'g'),
        ignFile('/etc/kubernetes/kubelet-ca.crt', 'c'),
        ignFile('/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt', 'c'),
        ignFile('/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem', 'c'),
        ignFile('/etc/docker/certs.d/registry:5000/ca.crt', 'c'),
        ignFile('/etc/systemd/system/kubelet.service.d/20-x.conf', 'd'),
      ],
      units: [
        {
          name: 'a.service',
          contents: 'a',
          dropins: [
            { name: 'keep.conf', contents: 'k' },
            { name: 'drop.conf', contents: 'd' },
          ],
        },
        { name: 'b.service', contents: 'b', dropins: [{ name: 'b.conf', contents: 'b' }] },
      ],
    });
    const newIgn = ignition({
      files: [ignFile('/etc/kept', 'k')],
      units: [
        { name: 'a.service', contents: 'a', dropins: [{ name: 'keep.conf', contents: 'k' }] },
        { name: 'kubelet.service', dropins: [{ name: '20-x.conf', contents: 'd' }] },
      ],
    });
    // WHEN planned
    const plan = planStaleRemovals(oldIgn, newIgn);
    // THEN
    expect(plan.files).toEqual([
      { path: '/etc/gone', keep: false },
      { path: '/etc/systemd/system/kubelet.service.d/20-x.conf', keep: true },
    ]);
    expect(plan.systemd).toEqual([
      { kind: 'dropin', path: '/etc/systemd/system/a.service.d/drop.conf' },
      { kind: 'dropin', path: '/etc/systemd/system/b.service.d/b.conf' },
      { kind: 'unit', name: 'b.service', path: '/etc/systemd/system/b.service' },
    ]);
    expect(plan.leakedLinks).toEqual([
      '/etc/systemd/system/network-online.target.requires/node-valid-hostname.service',
      '/etc/systemd/system/network-online.target.wants/ovs-configuration.service',
    ]);
  });

  it.each([
    [
      '/etc/systemd/system/kubelet.service.d/10-a.conf',
      { unit: 'kubelet.service', dropin: '10-a.conf' },
    ],
    ['/etc/systemd/system/a.b.service.d/x.conf', { unit: 'a.b.service', dropin: 'x.conf' }],
    ['/etc/systemd/system/kubelet.service.d/10-a', undefined],
    ['/etc/systemd/system/kubelet.service/10-a.conf', undefined],
    ['/etc/other/kubelet.service.d/10-a.conf', undefined],
  ] as const)('systemdDropinOf(%j)', (path, expected) => {
    expect(systemdDropinOf(path)).toEqual(expected);
  });
});
