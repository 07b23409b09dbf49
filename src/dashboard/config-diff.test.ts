import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { diffMachineConfigs } from './config-diff.js';
import { machineConfig } from '../../test/support/dashboard-objects.js';

describe('diffMachineConfigs', () => {
  const before = machineConfig('rendered-worker-a', {
    files: { '/etc/chrony.conf': 'server a iburst\n', '/etc/motd': 'hello\n', '/etc/gone': 'x' },
    units: [
      { name: 'kubelet.service', enabled: true, contents: '[Service]\nExecStart=/bin/kubelet\n' },
    ],
    osImageURL: 'quay.io/os@sha256:1',
  });
  const after = machineConfig('rendered-worker-b', {
    files: { '/etc/chrony.conf': 'server b iburst\n', '/etc/motd': 'hello\n', '/etc/new': 'new\n' },
    units: [
      { name: 'kubelet.service', enabled: true, contents: '[Service]\nExecStart=/bin/kubelet\n' },
      {
        name: 'node-health.service',
        enabled: true,
        contents: '[Unit]\n',
        dropins: [{ name: '10-env.conf', contents: '[Service]\nEnvironment=A=1\n' }],
      },
    ],
    osImageURL: 'quay.io/os@sha256:2',
    kernelArguments: ['nosmt'],
  });

  it('lists changed, added and removed files with decoded contents, side by side', () => {
    const d = diffMachineConfigs(before, after);
    if (!d.ok) throw new Error(d.error);
    expect(d.value.from).toBe('rendered-worker-a');
    expect(d.value.to).toBe('rendered-worker-b');
    expect(d.value.files.map((f) => [f.path, f.change])).toEqual([
      ['/etc/chrony.conf', 'changed'],
      ['/etc/gone', 'removed'],
      ['/etc/new', 'added'],
    ]);
    const chrony = d.value.files[0];
    expect(chrony?.from).toEqual({
      mode: '0644',
      owner: 'root:root',
      contents: 'server a iburst\n',
    });
    expect(chrony?.rows).toEqual([
      { kind: 'changed', left: 'server a iburst', right: 'server b iburst' },
    ]);
    expect(d.value.unchangedFiles).toEqual(['/etc/motd']);
  });

  it('lists units with their dropins and enablement', () => {
    const d = diffMachineConfigs(before, after);
    if (!d.ok) throw new Error(d.error);
    expect(d.value.units).toEqual([
      {
        name: 'node-health.service',
        change: 'added',
        from: '',
        to: 'enabled',
        rows: [
          { kind: 'added', right: '[Unit]' },
          { kind: 'added', right: '# dropin node-health.service.d/10-env.conf' },
          { kind: 'added', right: '[Service]' },
          { kind: 'added', right: 'Environment=A=1' },
        ],
      },
    ]);
    expect(d.value.unchangedUnits).toEqual(['kubelet.service']);
  });

  it('compares the OS fields', () => {
    const d = diffMachineConfigs(before, after);
    if (!d.ok) throw new Error(d.error);
    expect(d.value.fields.filter((f) => f.changed)).toEqual([
      {
        field: 'osImageURL',
        from: 'quay.io/os@sha256:1',
        to: 'quay.io/os@sha256:2',
        changed: true,
      },
      { field: 'kernelArguments', from: '', to: 'nosmt', changed: true },
    ]);
  });

  it('decodes gzip and base64 contents and says when a file is binary', () => {
    const gz = gzipSync(Buffer.from('compressed text\n')).toString('base64');
    const mc = machineConfig('b');
    const files = mc.spec?.config as { storage: { files: unknown[] } };
    files.storage.files.push(
      { path: '/etc/gz', contents: { source: `data:;base64,${gz}`, compression: 'gzip' } },
      { path: '/etc/bin', mode: 0o755, contents: { source: 'data:;base64,/w==' } },
    );
    const d = diffMachineConfigs(machineConfig('a'), mc);
    if (!d.ok) throw new Error(d.error);
    expect(d.value.files.map((f) => [f.path, f.to?.mode, f.to?.contents])).toEqual([
      ['/etc/bin', '0755', '(binary, 1 bytes)'],
      ['/etc/gz', '0644', 'compressed text\n'],
    ]);
  });

  it("reports a config that cannot be parsed with upstream's text", () => {
    const bad = machineConfig('bad');
    (bad.spec as { config: unknown }).config = { ignition: { version: '9.9.9' } };
    const d = diffMachineConfigs(machineConfig('a'), bad);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toMatch(/^parsing new Ignition config failed: /);
  });
});

describe('diffMachineConfigs: users', () => {
  const withUsers = (
    name: string,
    users: { name: string; sshAuthorizedKeys?: string[]; passwordHash?: string }[],
  ) => {
    const mc = machineConfig(name);
    const config = mc.spec?.config as Record<string, unknown>;
    config['passwd'] = { users };
    return mc;
  };

  it('shows SSH keys added and removed, and a password only as set or changed', () => {
    const a = withUsers('rendered-worker-a', [
      { name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAAold installer'] },
    ]);
    const b = withUsers('rendered-worker-b', [
      {
        name: 'core',
        sshAuthorizedKeys: ['ssh-ed25519 AAAAnew admin@example.com'],
        passwordHash: '$6$secret',
      },
      { name: 'ops', sshAuthorizedKeys: ['ssh-rsa AAAAops'] },
    ]);
    const d = diffMachineConfigs(a, b);
    if (!d.ok) throw new Error(d.error);
    expect(d.value.users.map((u) => [u.name, u.change])).toEqual([
      ['core', 'changed'],
      ['ops', 'added'],
    ]);
    const core = d.value.users[0]?.rows ?? [];
    expect(core.map((r) => [r.kind, r.left ?? null, r.right ?? null])).toEqual([
      ['changed', 'ssh-ed25519 AAAAold installer', 'ssh-ed25519 AAAAnew admin@example.com'],
      ['added', null, '# password: set'],
    ]);
    expect(JSON.stringify(d.value)).not.toContain('$6$secret');
  });

  it('lists a user whose only change is its password hash, without the hash', () => {
    const a = withUsers('a', [{ name: 'core', passwordHash: '$6$one' }]);
    const b = withUsers('b', [{ name: 'core', passwordHash: '$6$two' }]);
    const d = diffMachineConfigs(a, b);
    if (!d.ok) throw new Error(d.error);
    expect(d.value.users.map((u) => u.rows.map((r) => r.right ?? null))).toEqual([
      ['# password: set', '# password changed'],
    ]);
    expect(JSON.stringify(d.value)).not.toContain('$6$');
  });
});
