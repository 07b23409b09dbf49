/**
 * planUpdate as goldens: the public D vectors (docs/reference/vectors.md §D1 through the OS part
 * of the plan, docs/reference/vectors.md §D3 through the first-boot path), the policy path of docs/reference/daemon.md §7.4
 * for files, units, SSH keys, registries.conf and OS changes, the errors that stop a plan, and
 * one whole plan (the worked example of docs/daemon.md).
 */
import { describe, expect, it } from 'vitest';
import type { MachineConfigSpec } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  coreUser,
  ignFile,
  machineConfig,
  type ConfigParts,
} from '../../../test/support/nodeplan-fixtures.js';
import { rpmOstreeKargsArgs } from './kernel-arguments.js';
import { defaultClusterPolicies, mergeClusterPolicies } from './node-disruption-policies.js';
import { summarizePlan, planEffect } from './plan-summary.js';
import type { ClusterPolicies } from './policy-types.js';
import { describePlanError, planUpdate, type NodeFacts } from './update-plan.js';
import { D3 } from '../../../test/support/nodeplan-d3-vectors.js';

const running: NodeFacts = {
  firstBoot: false,
  forceFile: false,
  nodeFips: false,
  policies: defaultClusterPolicies,
};

type Side = ConfigParts & Omit<MachineConfigSpec, 'config'>;
const mcOf = (name: string, side: Side) => {
  const { files, units, users, ...spec } = side;
  return machineConfig(
    name,
    {
      ...(files === undefined ? {} : { files }),
      ...(units === undefined ? {} : { units }),
      ...(users === undefined ? {} : { users }),
    },
    spec,
  );
};

function plan(old: Side, next: Side, facts: NodeFacts = running) {
  const r = planUpdate(mcOf('rendered-worker-old', old), mcOf('rendered-worker-new', next), facts);
  if (!r.ok) throw new Error(describePlanError(r.error));
  return r.value;
}

// docs/reference/vectors.md §D1 (upstream TestKernelAguments)
const D1: readonly (readonly [string[] | undefined, string[] | undefined, string])[] = [
  [undefined, ['hello=world'], '--append=hello=world'],
  [['hello=world'], undefined, '--delete-if-present=hello=world'],
  [
    ['foo', 'bar=1', 'hello=world'],
    ['hello=world'],
    '--delete-if-present=foo --delete-if-present=bar=1 --delete-if-present=hello=world --append=hello=world',
  ],
  [
    ['foo', 'bar=1 hello=world', 'baz'],
    ['foo', 'bar=1', 'hello=world'],
    '--delete-if-present=foo --delete-if-present=bar=1 --delete-if-present=hello=world --delete-if-present=baz --append=foo --append=bar=1 --append=hello=world',
  ],
  [
    [' baz=test bar="hello world"'],
    [' baz=test bar="hello world"', 'foo'],
    '--delete-if-present=baz=test --delete-if-present=bar="hello world" --append=baz=test --append=bar="hello world" --append=foo',
  ],
  [
    ['hugepagesz=1G hugepages=4', 'hugepagesz=2M hugepages=4'],
    ['hugepagesz=1G hugepages=4', 'hugepagesz=2M hugepages=6'],
    '--delete-if-present=hugepagesz=1G --delete-if-present=hugepages=4 --delete-if-present=hugepagesz=2M --delete-if-present=hugepages=4 --append=hugepagesz=1G --append=hugepages=4 --append=hugepagesz=2M --append=hugepages=6',
  ],
];

describe('planUpdate: vector D1 (kernel arguments)', () => {
  it.each(D1)('%j → %j', (oldArgs, newArgs, expected) => {
    const p = plan(
      oldArgs === undefined ? {} : { kernelArguments: oldArgs },
      newArgs === undefined ? {} : { kernelArguments: newArgs },
    );
    expect(p.os.kernelArguments).toBeDefined();
    expect(rpmOstreeKargsArgs(p.os.kernelArguments!).join(' ')).toBe(expected);
    expect(p.os.apply).toBe(true);
    expect(p.os.reason).toBe('Changing kernel arguments');
    expect(summarizePlan(p)).toMatchObject({ actions: ['Reboot'], drain: true, reboot: true });
  });

  it('no kernel argument step when the lists are equal', () => {
    const p = plan({ kernelArguments: ['a', 'b=1'] }, { kernelArguments: ['a', 'b=1'] });
    expect(p.os.kernelArguments).toBeUndefined();
    expect(p.os.apply).toBe(false);
    expect(summarizePlan(p).actions).toEqual(['None']);
  });
});

describe('planUpdate: vector D3 through the first-boot path', () => {
  const firstBoot: NodeFacts = { ...running, firstBoot: true };
  it.each(D3)('%s → %j', (_name, oldSide, newSide, expected) => {
    const withImage = (s: (typeof D3)[number][1]): Side => ({
      ...s,
      osImageURL: s.osImageURL ?? 'dummy://',
    });
    const p = plan(withImage(oldSide), withImage(newSide), firstBoot);
    const s = summarizePlan(p);
    expect(s.path).toBe('legacy');
    expect(s.actions).toEqual(expected);
    expect(s.reboot).toBe(expected.includes('reboot'));
    // nothing drains at first boot
    expect(s.drain).toBe(false);
  });
});

const registries = (search: string, extra = '') =>
  ignFile(
    '/etc/containers/registries.conf',
    `unqualified-search-registries = [${search}]\n${extra}`,
  );
const unit = (name: string, contents: string) => ({ name, contents, enabled: true });

/** docs/reference/daemon.md §7.4–7.5 and docs/reference/node-disruption.md §5–6: a change → actions, drain. */
const PolicyCases: readonly (readonly [
  string,
  Side,
  Side,
  { actions: string[]; drain: boolean },
])[] = [
  [
    'nothing changes',
    { files: [ignFile('/etc/a', 'a')] },
    { files: [ignFile('/etc/a', 'a')] },
    { actions: ['None'], drain: false },
  ],
  [
    'a file without a policy',
    { files: [ignFile('/etc/a', 'a')] },
    { files: [ignFile('/etc/a', 'b')] },
    { actions: ['Reboot'], drain: true },
  ],
  [
    'the kubelet auth file',
    {},
    { files: [ignFile('/var/lib/kubelet/config.json', '{}')] },
    { actions: ['None'], drain: false },
  ],
  [
    'policy.json',
    {},
    { files: [ignFile('/etc/containers/policy.json', '{}')] },
    { actions: ['Reload crio.service'], drain: false },
  ],
  [
    'two files under registries.d: the reload twice, duplicates kept',
    {},
    {
      files: [
        ignFile('/etc/containers/registries.d/b.yaml', 'b'),
        ignFile('/etc/containers/registries.d/a.yaml', 'a'),
      ],
    },
    { actions: ['Reload crio.service', 'Reload crio.service'], drain: false },
  ],
  [
    'registries.d.bak is not under registries.d',
    {},
    { files: [ignFile('/etc/containers/registries.d.bak', 'x')] },
    { actions: ['Reboot'], drain: true },
  ],
  [
    'a crio policy under /etc/crio/policies',
    {},
    { files: [ignFile('/etc/crio/policies/ns.json', '{}')] },
    { actions: ['Reload crio.service'], drain: false },
  ],
  [
    'registries.conf, a safe change (search registry appended)',
    { files: [registries('"a.io"')] },
    { files: [registries('"a.io", "b.io"')] },
    { actions: ['Special'], drain: false },
  ],
  [
    'registries.conf, an unsafe change (search registry removed)',
    { files: [registries('"a.io", "b.io"')] },
    { files: [registries('"b.io"')] },
    { actions: ['Special'], drain: true },
  ],
  [
    'the user CA bundle: both restarts, in order',
    {},
    {
      files: [
        ignFile('/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt', 'ca'),
      ],
    },
    {
      actions: ['Restart coreos-update-ca-trust.service', 'Restart crio.service'],
      drain: false,
    },
  ],
  [
    'None beside Reload is dropped',
    {},
    {
      files: [
        ignFile('/var/lib/kubelet/config.json', '{}'),
        ignFile('/etc/containers/policy.json', '{}'),
      ],
    },
    { actions: ['Reload crio.service'], drain: false },
  ],
  [
    'a unit with a default policy',
    {},
    { units: [unit('iri-registry.service', '[Service]\nExecStart=/bin/true\n')] },
    { actions: ['DaemonReload', 'Restart iri-registry.service'], drain: false },
  ],
  [
    'a unit without a policy',
    {},
    { units: [unit('other.service', '[Service]\nExecStart=/bin/true\n')] },
    { actions: ['Reboot'], drain: true },
  ],
  [
    'only the SSH keys',
    { users: [coreUser('ssh-ed25519 A')] },
    { users: [coreUser('ssh-ed25519 B')] },
    { actions: ['None'], drain: false },
  ],
  [
    'the OS image',
    { osImageURL: 'quay.io/os@sha256:1' },
    { osImageURL: 'quay.io/os@sha256:2' },
    { actions: ['Reboot'], drain: true },
  ],
  ['the kernel type', {}, { kernelType: 'realtime' }, { actions: ['Reboot'], drain: true }],
  [
    'a file with a policy and the kernel arguments',
    {},
    { files: [ignFile('/etc/containers/policy.json', '{}')], kernelArguments: ['a=1'] },
    { actions: ['Reboot'], drain: true },
  ],
];

describe('planUpdate: the policy path (a running node, default policies)', () => {
  it.each(PolicyCases)('%s', (_name, old, next, expected) => {
    const s = summarizePlan(plan(old, next));
    expect(s.path).toBe('policies');
    expect({ actions: s.actions, drain: s.drain }).toEqual(expected);
    expect(s.reboot).toBe(expected.actions.includes('Reboot'));
  });

  it('orders the actions by path, whatever the config order', () => {
    const policies = mergeClusterPolicies(defaultClusterPolicies, {
      files: [
        { path: '/etc/b', actions: [{ type: 'Restart', restart: { serviceName: 'b.service' } }] },
        { path: '/etc/a', actions: [{ type: 'Restart', restart: { serviceName: 'a.service' } }] },
      ],
    });
    const s = summarizePlan(
      plan(
        { files: [ignFile('/etc/z', 'gone')] },
        { files: [ignFile('/etc/b', 'b'), ignFile('/etc/a', 'a')] },
        {
          ...running,
          policies: {
            ...policies,
            files: [
              ...(policies.files ?? []),
              { path: '/etc/z', actions: [{ type: 'DaemonReload' }] },
            ],
          },
        },
      ),
    );
    // removed paths first, then added or changed ones, each sorted
    expect(s.changedPaths).toEqual(['/etc/z', '/etc/a', '/etc/b']);
    expect(s.actions).toEqual(['DaemonReload', 'Restart a.service', 'Restart b.service']);
  });

  it('uses the policies it is given as they are: an empty status reboots every file change', () => {
    const s = summarizePlan(
      plan(
        {},
        { files: [ignFile('/etc/containers/policy.json', '{}')] },
        {
          ...running,
          policies: {},
        },
      ),
    );
    expect(s.actions).toEqual(['Reboot']);
  });

  it('the forcefile: a full re-apply with a reboot, even without changes', () => {
    const p = plan(
      { files: [ignFile('/etc/a', 'a')] },
      { files: [ignFile('/etc/a', 'a')] },
      {
        ...running,
        forceFile: true,
      },
    );
    expect(summarizePlan(p)).toMatchObject({ actions: ['Reboot'], forced: true, reboot: true });
    expect(p.files.map((f) => f.path)).toEqual(['/etc/a']);
  });

  it('a single-replica node does not drain, though the drain is required', () => {
    const p = plan({}, { kernelArguments: ['a'] }, { ...running, singleReplica: true });
    expect(p.drain).toEqual({
      required: true,
      perform: false,
      skipReason: 'Drain not required on a single-replica control plane, skipping.',
    });
    expect(p.messages.prepared).toBe(
      'Update Compatible. Post Cfg Actions: [Reboot] Drain Required: true',
    );
  });

  it('stages the image only when the booted one is not the target', () => {
    const image = { osImageURL: 'quay.io/os@sha256:2' };
    expect(plan({ osImageURL: 'quay.io/os@sha256:1' }, image).os.stageImage).toBe(
      'quay.io/os@sha256:2',
    );
    const booted = plan({ osImageURL: 'quay.io/os@sha256:1' }, image, {
      ...running,
      bootedImage: 'quay.io/os@sha256:2',
    });
    expect(booted.os.stageImage).toBeUndefined();
    expect(booted.os.imageAlreadyBooted).toBe(true);
    // nothing left to change: no OSUpdateStarted/Staged, upstream's OSUpgradeSkipped
    expect(booted.os.apply).toBe(true);
    expect(booted.os.announce).toBe(false);
    expect(booted.os.upgradeEvent.reason).toBe('OSUpgradeSkipped');
    const staged = plan({ osImageURL: 'quay.io/os@sha256:1' }, image);
    expect(staged.os.announce).toBe(true);
    expect(staged.os.upgradeEvent).toEqual({
      reason: 'OSUpgradeApplied',
      message: `OS upgrade applied; new MachineConfig (${staged.to.name}) has new OS image (quay.io/os@sha256:2)`,
    });
  });
});

const userPolicies: ClusterPolicies = mergeClusterPolicies(defaultClusterPolicies, {
  files: [
    {
      path: '/etc/foo/foo.conf',
      actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
    },
  ],
  units: [{ name: 'foo.service', actions: [{ type: 'DaemonReload' }] }],
  sshkey: { actions: [{ type: 'Drain' }] },
});

describe('planUpdate: user policies merged as the operator merges them', () => {
  it('a file → Restart foo.service, its unit → DaemonReload: no drain, no reboot', () => {
    const s = summarizePlan(
      plan(
        { files: [ignFile('/etc/foo/foo.conf', 'a=1\n')] },
        {
          files: [ignFile('/etc/foo/foo.conf', 'a=2\n')],
          units: [unit('foo.service', '[Service]\nExecStart=/bin/foo\n')],
        },
        { ...running, policies: userPolicies },
      ),
    );
    expect(s).toMatchObject({
      actions: ['Restart foo.service', 'DaemonReload'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/foo/foo.conf'],
      changedUnits: ['foo.service'],
    });
    expect(planEffect(s)).toBe('will restart foo.service and run daemon-reload');
  });

  it('sshkey → Drain: drains without a reboot', () => {
    const s = summarizePlan(
      plan(
        { users: [coreUser('A')] },
        { users: [coreUser('B')] },
        {
          ...running,
          policies: userPolicies,
        },
      ),
    );
    expect(s).toMatchObject({ actions: ['Drain'], drain: true, reboot: false, sshKeys: true });
    expect(planEffect(s)).toBe('will drain, then update');
  });
});

describe('planUpdate: what stops a plan', () => {
  const err = (old: Side, next: Side, facts: NodeFacts = running) => {
    const r = planUpdate(mcOf('rendered-a', old), mcOf('rendered-b', next), facts);
    if (r.ok) throw new Error('planned');
    return { kind: r.error.kind, text: describePlanError(r.error) };
  };

  it('an unreconcilable change, with upstream’s message', () => {
    expect(err({}, { fips: true })).toEqual({
      kind: 'Unreconcilable',
      text: 'can\'t reconcile config rendered-a with rendered-b: configs rendered-a, rendered-b are not reconcilable: new machineconfig "rendered-a" is not reconcilable against "rendered-b": detected change to FIPS flag; refusing to modify FIPS on a running cluster',
    });
  });

  it('a FIPS node asked for a non-FIPS config', () => {
    expect(err({}, {}, { ...running, nodeFips: true }).text).toBe(
      "can't reconcile config rendered-a with rendered-b: detected change to FIPS flag; refusing to modify FIPS on a running cluster",
    );
  });

  it('a target that admission refuses (a setuid file)', () => {
    expect(err({}, { files: [ignFile('/etc/x', 'x', 0o4755)] })).toEqual({
      kind: 'Target',
      text: 'refusing to apply config rendered-b: invalid mode 04755 for /etc/x, cannot exceed 0777',
    });
  });

  it.each([
    ['', 'must not be empty'],
    ['../../bin/sh.service', 'must not contain "/"'],
    ['-Hevil.service', 'must not start with "-"'],
    ['foo', 'must end in a systemd unit type'],
    ['a b.service', 'may only contain'],
  ])('a policy naming the service %j', (service, reason) => {
    const policies = mergeClusterPolicies(defaultClusterPolicies, {
      files: [
        { path: '/etc/x', actions: [{ type: 'Restart', restart: { serviceName: service } }] },
      ],
    });
    const e = err({}, { files: [ignFile('/etc/x', 'x')] }, { ...running, policies });
    expect(e.kind).toBe('ServiceName');
    expect(e.text).toContain(`invalid service name ${JSON.stringify(service)}: ${reason}`);
  });

  it('an undecodable registries.conf change', () => {
    expect(
      err(
        { files: [registries('"a.io"')] },
        { files: [ignFile('/etc/containers/registries.conf', 'not = [toml')] },
      ).text,
    ).toMatch(/^failed decoding TOML content from file \/etc\/containers\/registries\.conf: /);
  });
});

describe('planUpdate: one whole plan (docs/daemon.md, the worked example)', () => {
  it('a crio policy file and a new SSH key on a running node', () => {
    const p = plan(
      {
        files: [ignFile('/etc/containers/policy.json', '{"default":[{"type":"reject"}]}')],
        users: [coreUser('ssh-ed25519 AAAA old')],
        osImageURL: 'quay.io/os@sha256:1',
      },
      {
        files: [
          ignFile('/etc/containers/policy.json', '{"default":[{"type":"insecureAcceptAnything"}]}'),
        ],
        users: [coreUser('ssh-ed25519 AAAA new')],
        osImageURL: 'quay.io/os@sha256:1',
      },
    );
    expect(summarizePlan(p)).toEqual({
      from: 'rendered-worker-old',
      to: 'rendered-worker-new',
      path: 'policies',
      actions: ['Reload crio.service'],
      drain: false,
      reboot: false,
      changedPaths: ['/etc/containers/policy.json'],
      changedUnits: [],
      sshKeys: true,
      kernelArguments: null,
      osImage: null,
      kernelType: null,
      extensions: null,
      forced: false,
    });
    expect(p.steps).toEqual([{ kind: 'reload', unit: 'crio.service' }]);
    expect(p.users.sshKeys).toBe('ssh-ed25519 AAAA new\n');
    expect(p.messages).toEqual({
      actions: '[Reload - crio.service]',
      prepared:
        'Update Compatible. Post Cfg Actions: [Reload - crio.service] Drain Required: false',
      applying:
        'Applying files and new OS config to node. OS will not need an update. SSH Keys will need an update',
      applied:
        'Applied files and new OS config to node. OS did not need an update. SSH Keys did need an update',
    });
    expect(p.journal).toEqual({
      capturePaths: ['/home/core/.ssh/authorized_keys.d/ignition'],
      users: ['core'],
      newUnits: [],
    });
    expect(planEffect(summarizePlan(p))).toBe('will reload crio.service');
  });
});

describe('extensions in the OS plan', () => {
  const image = 'quay.io/ext@sha256:e';
  it('a changed list asks the host for the whole target list, de-duplicated and sorted', () => {
    const p = plan(
      { osImageURL: 'quay.io/os@sha256:1' },
      {
        osImageURL: 'quay.io/os@sha256:1',
        baseOSExtensionsContainerImage: image,
        extensions: ['usbguard', 'kerberos', 'usbguard'],
      },
    );
    expect(p.os.extensions).toEqual({ image, extensions: ['kerberos', 'usbguard'] });
    expect(p.reboot).toBe(true);
  });
  it('removing every extension asks for none', () => {
    const p = plan(
      { osImageURL: 'quay.io/os@sha256:1', extensions: ['usbguard'] },
      { osImageURL: 'quay.io/os@sha256:1', baseOSExtensionsContainerImage: image },
    );
    expect(p.os.extensions).toEqual({ image, extensions: [] });
  });
  it('a new OS image re-applies kept extensions on top of it; an unchanged one does not', () => {
    const kept = { baseOSExtensionsContainerImage: image, extensions: ['usbguard'] };
    const upgraded = plan(
      { osImageURL: 'quay.io/os@sha256:1', ...kept },
      { osImageURL: 'quay.io/os@sha256:2', ...kept },
    );
    expect(upgraded.os.stageImage).toBe('quay.io/os@sha256:2');
    expect(upgraded.os.extensions).toEqual({ image, extensions: ['usbguard'] });
    const same = plan(
      { osImageURL: 'quay.io/os@sha256:1', ...kept, kernelArguments: ['a'] },
      { osImageURL: 'quay.io/os@sha256:1', ...kept },
    );
    expect(same.os.extensions).toBeUndefined();
  });
});
