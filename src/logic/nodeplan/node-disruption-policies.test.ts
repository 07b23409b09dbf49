import { describe, expect, it } from 'vitest';
import type { MachineConfiguration } from '../../api/operator/v1/machine-configuration.js';
import type { MachineConfigDiff } from './machine-config-diff.js';
import {
  actionsFromPolicies,
  calculatePostConfigChangeActions,
  defaultClusterPolicies,
  describeAction,
  findClosestFilePolicy,
  isSubdirectory,
  mergeClusterPolicies,
} from './node-disruption-policies.js';
import type { ClusterPolicies, PolicyAction } from './policy-types.js';

const noDiff: MachineConfigDiff = {
  osUpdate: false,
  kargs: false,
  fips: false,
  passwd: false,
  files: false,
  units: false,
  kernelType: false,
  extensions: false,
};
const reboot: PolicyAction[] = [{ type: 'Reboot' }];
const none: PolicyAction[] = [{ type: 'None' }];
const reloadCrio = { type: 'Reload', reload: { serviceName: 'crio.service' } } as const;
const restart = (s: string): PolicyAction => ({
  type: 'Restart',
  restart: { serviceName: s },
});

describe('defaultClusterPolicies: the docs/reference/daemon.md §7.4 table', () => {
  it('has every default, in upstream order, as `path: actions`', () => {
    const rows = (defaultClusterPolicies.files ?? []).map(
      (f) => `${f.path}: ${f.actions.map(describeAction).join(', ')}`,
    );
    expect(rows).toEqual([
      '/var/lib/kubelet/config.json: None',
      '/etc/machine-config-daemon/no-reboot/containers-gpg.pub: Reload - crio.service',
      '/etc/containers/policy.json: Reload - crio.service',
      '/etc/containers/registries.conf: Special',
      '/etc/containers/registries.d: Reload - crio.service',
      '/etc/crio/policies: Reload - crio.service',
      '/etc/nmstate/openshift: None',
      '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt: Restart - coreos-update-ca-trust.service, Restart - crio.service',
      '/etc/kubernetes/credential-providers: Restart - kubelet.service',
      '/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf: DaemonReload, Restart - kubelet.service',
      '/etc/iri-registry: Restart - iri-registry.service',
      '/usr/local/bin/load-registry-image.sh: Restart - iri-registry.service',
      '/etc/pki/ca-trust/source/anchors/iri-root-ca.crt: Restart - coreos-update-ca-trust.service',
    ]);
    expect(defaultClusterPolicies.units).toEqual([
      {
        name: 'iri-registry.service',
        actions: [{ type: 'DaemonReload' }, restart('iri-registry.service')],
      },
    ]);
    expect(defaultClusterPolicies.sshkey).toEqual({ actions: none });
  });
});

describe('mergeClusterPolicies', () => {
  it('with no user spec returns the defaults', () => {
    expect(mergeClusterPolicies(defaultClusterPolicies, undefined)).toEqual(defaultClusterPolicies);
  });

  it('replaces a default path in place, appends others, and converts spec actions', () => {
    // GIVEN a user spec overriding policy.json, adding /etc/foo and a unit, and ssh actions
    const merged = mergeClusterPolicies(defaultClusterPolicies, {
      files: [
        {
          path: '/etc/foo',
          actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
        },
        { path: '/etc/containers/policy.json', actions: [{ type: 'None' }] },
      ],
      units: [
        { name: 'iri-registry.service', actions: [{ type: 'Reboot' }] },
        {
          name: 'bar.service',
          actions: [{ type: 'Reload', reload: { serviceName: 'bar.service' } }],
        },
      ],
      sshkey: { actions: [{ type: 'Drain' }] },
    });
    // THEN policy.json keeps its position, /etc/foo comes last, units likewise, ssh replaced
    const files = merged.files ?? [];
    expect(files[2]).toEqual({ path: '/etc/containers/policy.json', actions: none });
    expect(files.at(-1)).toEqual({ path: '/etc/foo', actions: [restart('foo.service')] });
    expect(files).toHaveLength((defaultClusterPolicies.files ?? []).length + 1);
    expect(merged.units).toEqual([
      { name: 'iri-registry.service', actions: reboot },
      {
        name: 'bar.service',
        actions: [{ type: 'Reload', reload: { serviceName: 'bar.service' } }],
      },
    ]);
    expect(merged.sshkey).toEqual({ actions: [{ type: 'Drain' }] });
  });

  it('keeps the default sshkey actions when the user gives none', () => {
    const merged = mergeClusterPolicies(defaultClusterPolicies, { sshkey: { actions: [] } });
    expect(merged.sshkey).toEqual({ actions: none });
  });

  it('drops a service name that does not belong to the action type', () => {
    const merged = mergeClusterPolicies(
      { files: [] },
      { files: [{ path: '/x', actions: [{ type: 'Drain', reload: { serviceName: 'y' } }] }] },
    );
    expect(merged.files).toEqual([{ path: '/x', actions: [{ type: 'Drain' }] }]);
  });
});

describe('isSubdirectory / findClosestFilePolicy', () => {
  it.each([
    ['/etc/containers/registries.d', '/etc/containers/registries.d/a.yaml', true],
    ['/etc/containers/registries.d/', '/etc/containers/registries.d/sub/a.yaml', true],
    ['/etc/containers/registries.d', '/etc/containers/registries.d', false],
    ['/etc/containers/registries.d', '/etc/containers/registries.dx/a', false],
    ['/etc/a', '/etc/a/../b', false],
  ] as const)('isSubdirectory(%j, %j) = %j', (dir, target, expected) => {
    expect(isSubdirectory(dir, target)).toBe(expected);
  });

  const policies: ClusterPolicies = {
    files: [
      { path: '/etc', actions: [{ type: 'Drain' }] },
      { path: '/etc/app', actions: [restart('app.service')] },
      { path: '/etc/app/exact.conf', actions: none },
    ],
  };

  it.each([
    ['/etc/app/exact.conf', none],
    ['/etc/app/other.conf', [restart('app.service')]],
    ['/etc/app/deeper/x', [restart('app.service')]],
    ['/etc/x', [{ type: 'Drain' }]],
    ['/var/x', undefined],
  ] as const)('%s → the longest matching policy', (path, expected) => {
    expect(findClosestFilePolicy(path, policies)).toEqual(expected);
  });
});

describe('calculatePostConfigChangeActions (policy path)', () => {
  const policies = mergeClusterPolicies(defaultClusterPolicies, {
    files: [
      {
        path: '/etc/app',
        actions: [
          { type: 'DaemonReload' },
          { type: 'Restart', restart: { serviceName: 'app.service' } },
        ],
      },
    ],
    units: [
      {
        name: 'app.service',
        actions: [{ type: 'Restart', restart: { serviceName: 'app.service' } }],
      },
    ],
  });

  it.each([
    ['forcefile', { ...noDiff, files: true }, ['/etc/containers/policy.json'], [], true, reboot],
    ['osUpdate', { ...noDiff, osUpdate: true }, [], [], false, reboot],
    ['kargs', { ...noDiff, kargs: true }, [], [], false, reboot],
    ['fips', { ...noDiff, fips: true }, [], [], false, reboot],
    ['kernelType', { ...noDiff, kernelType: true }, [], [], false, reboot],
    ['extensions', { ...noDiff, extensions: true }, [], [], false, reboot],
    ['nothing of files/units/passwd', noDiff, [], [], false, none],
    [
      'a file without policy',
      { ...noDiff, files: true },
      ['/etc/containers/policy.json', '/etc/other'],
      [],
      false,
      reboot,
    ],
    ['a unit without policy', { ...noDiff, units: true }, [], ['other.service'], false, reboot],
    ['passwd only: the sshkey policy', { ...noDiff, passwd: true }, [], [], false, none],
    [
      'files keep order and duplicates',
      { ...noDiff, files: true },
      ['/etc/containers/policy.json', '/etc/crio/policies/a', '/etc/app/x'],
      [],
      false,
      [reloadCrio, reloadCrio, { type: 'DaemonReload' }, restart('app.service')],
    ],
    [
      'None dropped beside other actions',
      { ...noDiff, files: true, passwd: true },
      ['/var/lib/kubelet/config.json', '/etc/containers/registries.conf'],
      [],
      false,
      [{ type: 'Special' }],
    ],
    [
      'only Nones collapse to one',
      { ...noDiff, files: true, passwd: true },
      ['/var/lib/kubelet/config.json', '/etc/nmstate/openshift/eth0.yml'],
      [],
      false,
      none,
    ],
    [
      'units after files',
      { ...noDiff, files: true, units: true },
      ['/etc/containers/policy.json'],
      ['app.service'],
      false,
      [reloadCrio, restart('app.service')],
    ],
  ] as const)('%s', (_name, diff, files, units, forceFile, expected) => {
    // GIVEN a diff, the changed paths and units, and the merged policies
    // WHEN the actions are calculated
    // THEN they are upstream's
    expect(
      calculatePostConfigChangeActions({
        diff,
        changedFiles: files,
        changedUnits: units,
        policies,
        forceFile,
      }),
    ).toEqual(expected);
  });

  it('a Reboot from any policy wins over everything else', () => {
    const withReboot = mergeClusterPolicies(defaultClusterPolicies, {
      files: [{ path: '/etc/reboot-me', actions: [{ type: 'Reboot' }] }],
    });
    expect(
      actionsFromPolicies(false, ['/etc/containers/policy.json', '/etc/reboot-me'], [], withReboot),
    ).toEqual(reboot);
  });
});

describe('API compatibility', () => {
  it('takes MachineConfiguration/cluster spec and status objects as they are', () => {
    // GIVEN a MachineConfiguration typed by the API schema
    const mcop: MachineConfiguration = {
      apiVersion: 'operator.openshift.io/v1',
      kind: 'MachineConfiguration',
      metadata: { name: 'cluster' },
      spec: { nodeDisruptionPolicy: { sshkey: { actions: [{ type: 'Drain' }] } } },
      status: { nodeDisruptionPolicyStatus: { clusterPolicies: defaultClusterPoliciesCopy() } },
    };
    // WHEN its pieces are passed to the policy functions (this compiles: the types are compatible)
    const merged = mergeClusterPolicies(defaultClusterPolicies, mcop.spec.nodeDisruptionPolicy);
    const fromStatus = mcop.status?.nodeDisruptionPolicyStatus?.clusterPolicies ?? {};
    // THEN
    expect(merged.sshkey).toEqual({ actions: [{ type: 'Drain' }] });
    expect(actionsFromPolicies(true, [], [], fromStatus)).toEqual(none);
  });
});

type StatusPolicies = NonNullable<
  NonNullable<
    NonNullable<MachineConfiguration['status']>['nodeDisruptionPolicyStatus']
  >['clusterPolicies']
>;

function defaultClusterPoliciesCopy(): StatusPolicies {
  return JSON.parse(JSON.stringify(defaultClusterPolicies)) as StatusPolicies;
}
