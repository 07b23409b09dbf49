/**
 * Warnings about MachineConfigs that are accepted but will not do what their writer meant, through
 * real processes: `mco apiserver` and `mco controller` (render delay 200 ms), written to with
 * kubectl 1.32 (the default), 1.27 and 1.33. A typo in the Ignition config (`storage.filez`) is
 * stored, kubectl prints `Warning: spec.config.storage.filez: Unused key filez` on stderr, and the
 * render controller records a Warning event `IgnitionValidationWarning` on the MachineConfig; a
 * role no MachineConfigPool selects gets upstream's "could not find any MachineConfigPool" text
 * both ways (`NoMatchingPool`). A clean config of a selected role gets neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasMcoCommand, McoProcess } from '../support/mco-processes.js';
import { until } from '../support/until.js';
import { kubectl, startApiServer, type ApiServerProcess } from './apiserver-harness.js';

const Role = 'machineconfiguration.openshift.io/role';
const Versions = ['1.32', '1.27', '1.33'];

interface EventItem {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly involvedObject: { readonly kind: string; readonly name: string };
}

let api: ApiServerProcess;
let controller: McoProcess;
let caches = 0;

function k(args: readonly string[], input?: string, version = '1.32') {
  caches += 1;
  return kubectl(args, {
    kubeconfig: api.kubeconfig('admin'),
    cacheDir: `${api.dataDir}/kubectl-cache-${String(caches)}`,
    version,
    ...(input === undefined ? {} : { input }),
  });
}

function machineConfig(name: string, role: string, storage: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { [Role]: role } },
    spec: { config: { ignition: { version: '3.4.0' }, storage } },
  });
}

async function eventsAbout(name: string): Promise<EventItem[]> {
  const r = await k([
    'get',
    'events',
    '-A',
    '--field-selector',
    `involvedObject.name=${name}`,
    '-o',
    'json',
  ]);
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as { items: EventItem[] }).items;
}

function warningOf(name: string, reason: string): Promise<EventItem> {
  return until(`a Warning ${reason} event about ${name}`, async () =>
    (await eventsAbout(name)).find((e) => e.type === 'Warning' && e.reason === reason),
  );
}

const typo = { filez: [{ path: '/etc/typo', contents: { source: 'data:,x' } }] };
const file = { files: [{ path: '/etc/fine', contents: { source: 'data:,x' } }] };

describe('MachineConfig warnings through kubectl', () => {
  beforeAll(async () => {
    await until('mco controller to be built', () =>
      Promise.resolve(hasMcoCommand('controller') ? true : undefined),
    );
    api = await startApiServer();
    controller = new McoProcess('controller', [
      'controller',
      '--kubeconfig',
      api.kubeconfig('controller'),
      '--render-delay',
      '200ms',
    ]);
    const pool = await k(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfigPool',
        metadata: { name: 'worker' },
        spec: { machineConfigSelector: { matchLabels: { [Role]: 'worker' } } },
      }),
    );
    expect(pool.stderr).toBe('');
  }, 1_260_000);

  afterAll(async () => {
    await controller.stop();
    await api.stop();
  });

  it('a clean config of a selected role is stored without a warning', async () => {
    const r = await k(['apply', '-f', '-'], machineConfig('99-worker-fine', 'worker', file));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(
      'machineconfig.machineconfiguration.openshift.io/99-worker-fine created',
    );
  });

  it.each(Versions)(
    'kubectl %s prints the Ignition typo as a Warning; the config is stored',
    async (version) => {
      const name = `99-worker-typo-${version.replace('.', '-')}`;
      const r = await k(['apply', '-f', '-'], machineConfig(name, 'worker', typo), version);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(`Warning: spec.config.storage.filez: Unused key filez\n`);
      const stored = await k([
        'get',
        'machineconfig',
        name,
        '-o',
        'jsonpath={.spec.config.storage}',
      ]);
      expect(JSON.parse(stored.stdout)).toEqual(typo);
    },
  );

  it('a key with control characters is warned about with spaces in their place, not a failed answer', async () => {
    const hostile = { 'file\u0001z\u001b[31m': [] };
    const r = await k(
      ['apply', '-f', '-'],
      machineConfig('99-worker-hostile-key', 'worker', hostile),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'machineconfig.machineconfiguration.openshift.io/99-worker-hostile-key created',
    );
    expect(r.stderr).toBe('Warning: spec.config.storage.file z [31m: Unused key file z [31m\n');
  });

  it('the render controller records the typo as a Warning event on the MachineConfig', async () => {
    const event = await warningOf('99-worker-typo-1-32', 'IgnitionValidationWarning');
    expect(event).toMatchObject({
      message: 'spec.config.storage.filez: Unused key filez',
      involvedObject: { kind: 'MachineConfig', name: '99-worker-typo-1-32' },
    });
  });

  it.each(['1.32', '1.27'])('kubectl %s warns that no pool selects role infra', async (version) => {
    const name = `99-infra-${version.replace('.', '-')}`;
    const r = await k(['apply', '-f', '-'], machineConfig(name, 'infra', file), version);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `Warning: could not find any MachineConfigPool set for MachineConfig ${name} with labels: map[${Role}:infra]\n`,
    );
  });

  it('the render controller records NoMatchingPool, and nothing about the clean config', async () => {
    const event = await warningOf('99-infra-1-32', 'NoMatchingPool');
    expect(event.message).toBe(
      `could not find any MachineConfigPool set for MachineConfig 99-infra-1-32 with labels: map[${Role}:infra]`,
    );
    // one worker looks at configs in the order they came: the clean one was looked at first
    expect((await eventsAbout('99-worker-fine')).filter((e) => e.type === 'Warning')).toEqual([]);
  });
});
