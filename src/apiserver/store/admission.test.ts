import { describe, expect, it } from 'vitest';
import { admin, failure, newTestStore } from '../../../test/support/apiserver-test-store.js';

const MC = 'MachineConfig';
const mc = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });

describe('admission: ObjectMeta', () => {
  it('requires a name', async () => {
    const t = await newTestStore();
    const status = await failure(
      t.store.create(t.rt('ConfigMap'), 'default', { metadata: {} }, admin),
    );
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      reason: 'Invalid',
      details: {
        kind: 'ConfigMap',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: name or generateName is required',
            field: 'metadata.name',
          },
        ],
      },
      code: 422,
    });
  });

  it.each([
    [
      'ConfigMap',
      'default',
      'Bad_Name',
      "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    [
      'Namespace',
      undefined,
      'a.b',
      'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots',
    ],
  ])('checks %s names', async (kind, ns, name, message) => {
    const t = await newTestStore();
    expect(
      (await failure(t.store.create(t.rt(kind), ns, { metadata: { name } }, admin))).message,
    ).toBe(message);
  });

  it('checks label keys and values', async () => {
    const t = await newTestStore();
    const call = t.store.create(
      t.rt('ConfigMap'),
      'default',
      { metadata: { name: 'c', labels: { 'a/b/c': 'ok', k: 'bad value' } } },
      admin,
    );
    const status = await failure(call);
    expect(status.details?.causes?.map((c) => c.field)).toEqual([
      'metadata.labels',
      'metadata.labels',
    ]);
    expect(status.details?.causes?.[1]?.message).toBe(
      "Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  });
});

describe('admission: schema', () => {
  it('reports every violation as a cause, worded as the OpenAPI validator', async () => {
    const t = await newTestStore();
    const call = t.store.create(
      t.rt('MachineConfigPool'),
      undefined,
      { metadata: { name: 'w' }, spec: { paused: 'yes', maxUnavailable: true } },
      admin,
    );
    expect(await failure(call)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'MachineConfigPool.machineconfiguration.openshift.io "w" is invalid: [spec.paused: Invalid value: "string": spec.paused in body must be of type boolean: "string", spec.maxUnavailable: Invalid value: "boolean": spec.maxUnavailable in body must be of type integer,string: "boolean"]',
      reason: 'Invalid',
      details: {
        name: 'w',
        group: 'machineconfiguration.openshift.io',
        kind: 'MachineConfigPool',
        causes: [
          {
            reason: 'FieldValueTypeInvalid',
            message:
              'Invalid value: "string": spec.paused in body must be of type boolean: "string"',
            field: 'spec.paused',
          },
          {
            reason: 'FieldValueTypeInvalid',
            message:
              'Invalid value: "boolean": spec.maxUnavailable in body must be of type integer,string: "boolean"',
            field: 'spec.maxUnavailable',
          },
        ],
      },
      code: 422,
    });
  });

  it('reports required fields and enums with paths into lists', async () => {
    const t = await newTestStore();
    const call = t.store.create(
      t.rt('Node'),
      undefined,
      {
        metadata: { name: 'n' },
        spec: { taints: [{ key: 'k', effect: 'Sometimes' }, { effect: 'NoSchedule' }] },
      },
      admin,
    );
    const status = await failure(call);
    expect(status.details?.causes).toEqual([
      {
        reason: 'FieldValueNotSupported',
        message:
          'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        field: 'spec.taints[0].effect',
      },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.taints[1].key' },
    ]);
  });

  it('refuses PodDisruptionBudgets with both minAvailable and maxUnavailable, or bad percentages', async () => {
    const t = await newTestStore();
    const call = t.store.create(
      t.rt('PodDisruptionBudget'),
      'default',
      { metadata: { name: 'p' }, spec: { minAvailable: '150%', maxUnavailable: 'x' } },
      admin,
    );
    expect(
      (await failure(call)).details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`),
    ).toEqual([
      'spec: Invalid value: {"maxUnavailable":"x","minAvailable":"150%"}: minAvailable and maxUnavailable cannot be both set',
      'spec.minAvailable: Invalid value: "150%": must be no greater than 100%',
      "spec.maxUnavailable: Invalid value: \"x\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ]);
  });
});

describe('admission: MachineConfig', () => {
  it('lists each Ignition error as a cause under spec.config and stores nothing', async () => {
    const t = await newTestStore();
    const before = await t.storage.currentRevision();
    const config = {
      ignition: { version: '3.2.0' },
      storage: {
        files: [
          { path: 'relative', contents: { source: 'data:,x' } },
          { path: '/ok', contents: { source: 'data:,y' } },
          { path: 'also-relative' },
        ],
      },
    };
    const status = await failure(
      t.store.create(t.rt(MC), undefined, mc('99-bad', { config }), admin),
    );
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'MachineConfig.machineconfiguration.openshift.io "99-bad" is invalid: [spec.config.storage.files[0].path: Invalid value: "relative": path not absolute, spec.config.storage.files[2].path: Invalid value: "also-relative": path not absolute]',
      reason: 'Invalid',
      details: {
        name: '99-bad',
        group: 'machineconfiguration.openshift.io',
        kind: 'MachineConfig',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "relative": path not absolute',
            field: 'spec.config.storage.files[0].path',
          },
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "also-relative": path not absolute',
            field: 'spec.config.storage.files[2].path',
          },
        ],
      },
      code: 422,
    });
    expect(await t.storage.currentRevision()).toBe(before);
  });

  it.each([
    [
      { config: { ignition: { version: '4.0.0' } } },
      'spec.config.ignition.version: Invalid value: "4.0.0": parsing Ignition config failed: unknown version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    ],
    [
      { config: {} },
      'spec.config.ignition.version: Invalid value: parsing Ignition config failed: invalid version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    ],
    [{ kernelType: 'fast' }, 'spec.kernelType: Invalid value: "fast": kernelType=fast is invalid'],
    [
      { config: { ignition: { version: '3.4.0' } }, extensions: ['usbguard', 'emacs'] },
      'spec.extensions: Invalid value: ["emacs"]: invalid extensions found: [emacs]',
    ],
    [
      {
        config: {
          ignition: { version: '3.4.0' },
          storage: { files: [{ path: '/usr/local/bin/x', mode: 0o4755 }] },
        },
      },
      'spec.config.storage.files[0].mode: Invalid value: 2541: invalid mode 04755 for /usr/local/bin/x, cannot exceed 0777',
    ],
    [
      {
        config: {
          ignition: { version: '3.4.0' },
          systemd: { units: [{ name: 'a/../../../../srv/x.service', contents: '[Unit]\n' }] },
        },
      },
      'spec.config.systemd.units[0].name: Invalid value: "a/../../../../srv/x.service": invalid systemd unit name "a/../../../../srv/x.service": must not contain "/"',
    ],
    [
      {
        config: {
          ignition: { version: '3.2.0' },
          systemd: {
            units: [
              {
                name: 'kubelet.service',
                dropins: [
                  { name: '10-ok.conf', contents: '[Service]\n' },
                  { name: '../../../../../../../../srv/evil.conf', contents: '[Service]\n' },
                ],
              },
            ],
          },
        },
      },
      'spec.config.systemd.units[0].dropins[1].name: Invalid value: "../../../../../../../../srv/evil.conf": invalid systemd drop-in name "../../../../../../../../srv/evil.conf" of unit "kubelet.service": must not contain "/"',
    ],
    [
      {
        config: {
          ignition: { version: '2.2.0' },
          systemd: { units: [{ name: 'x..service' }, { name: `${'a'.repeat(250)}.service` }] },
        },
      },
      `[spec.config.systemd.units[0].name: Invalid value: "x..service": invalid systemd unit name "x..service": must not contain "..", spec.config.systemd.units[1].name: Invalid value: "${'a'.repeat(250)}.service": invalid systemd unit name "${'a'.repeat(250)}.service": must be at most 255 bytes]`,
    ],
    [
      {
        config: {
          ignition: { version: '3.4.0' },
          systemd: { units: [{ name: '../x.service' }, { name: 'x.sh' }] },
        },
      },
      // Ignition's own suffix check comes first, with its message
      'spec.config.systemd.units[1].name: Invalid value: "x.sh": invalid systemd unit extension',
    ],
  ])('refuses %j', async (spec, detail) => {
    const t = await newTestStore();
    const status = await failure(t.store.create(t.rt(MC), undefined, mc('x', spec), admin));
    expect(status.message).toBe(
      `MachineConfig.machineconfiguration.openshift.io "x" is invalid: ${detail}`,
    );
  });

  it('accepts a valid config, and checks updates too', async () => {
    const t = await newTestStore();
    const created = await t.store.create(
      t.rt(MC),
      undefined,
      mc('ok', { config: { ignition: { version: '3.4.0' } } }),
      admin,
    );
    expect(created.metadata.generation).toBe(1);
    const call = t.store.patch(
      t.rt(MC),
      undefined,
      'ok',
      { type: 'merge', body: '{"spec":{"kernelType":"fast"}}' },
      admin,
    );
    expect((await failure(call)).code).toBe(422);
  });
});

describe('admission: MachineConfig warnings', () => {
  const Role = 'machineconfiguration.openshift.io/role';
  const labelled = (name: string, role: string, config: Record<string, unknown>) => ({
    metadata: { name, labels: { [Role]: role } },
    spec: { config },
  });
  const workerPool = {
    metadata: { name: 'worker' },
    spec: { machineConfigSelector: { matchLabels: { [Role]: 'worker' } } },
  };

  it('stores a config with an Ignition typo and warns about each finding, also under Strict', async () => {
    const t = await newTestStore();
    await t.store.create(t.rt('MachineConfigPool'), undefined, workerPool, admin);
    const config = {
      ignition: { version: '3.2.0' },
      storage: { filez: [{ path: '/etc/x' }] },
      systemd: { units: [{ name: 'a.service', enabled: true, contents: '[Unit]\n' }] },
    };
    const warnings: string[] = [];
    const created = await t.store.create(
      t.rt(MC),
      undefined,
      labelled('99-typo', 'worker', config),
      { ...admin, fieldValidation: 'Strict', warnings },
    );
    expect(warnings).toEqual([
      'spec.config.systemd.units[0].contents: unit "a.service" is enabled, but has no install section so enable does nothing',
      'spec.config.storage.filez: Unused key filez',
    ]);
    expect(created['spec']).toEqual({ config });
    const again: string[] = [];
    await t.store.patch(
      t.rt(MC),
      undefined,
      '99-typo',
      { type: 'merge', body: '{"spec":{"config":{"systemd":null}}}' },
      { ...admin, warnings: again },
    );
    expect(again).toEqual(['spec.config.storage.filez: Unused key filez']);
  });

  it('warns when no pool selects the labels, with upstream’s words, and not once one does', async () => {
    const t = await newTestStore();
    const config = { ignition: { version: '3.4.0' } };
    const warnings: string[] = [];
    await t.store.create(t.rt(MC), undefined, labelled('99-infra', 'infra', config), {
      ...admin,
      warnings,
    });
    expect(warnings).toEqual([
      'could not find any MachineConfigPool set for MachineConfig 99-infra with labels: map[machineconfiguration.openshift.io/role:infra]',
    ]);
    const bare: string[] = [];
    await t.store.create(t.rt(MC), undefined, mc('99-bare', { config }), {
      ...admin,
      warnings: bare,
    });
    expect(bare).toEqual([
      'no MachineConfigPool found for MachineConfig 99-bare because it has no labels',
    ]);
    await t.store.create(t.rt('MachineConfigPool'), undefined, workerPool, admin);
    const quiet: string[] = [];
    await t.store.create(t.rt(MC), undefined, labelled('99-worker', 'worker', config), {
      ...admin,
      warnings: quiet,
    });
    expect(quiet).toEqual([]);
  });

  it('a refused config is refused, not warned about', async () => {
    const t = await newTestStore();
    const warnings: string[] = [];
    const call = t.store.create(
      t.rt(MC),
      undefined,
      labelled('99-bad', 'infra', {
        ignition: { version: '3.2.0' },
        storage: { filez: 1, files: [{ path: 'rel' }] },
      }),
      { ...admin, warnings },
    );
    expect((await failure(call)).code).toBe(422);
    expect(warnings).toEqual([]);
  });
});

describe('unknown fields', () => {
  it('prunes and warns by default, silently with Ignore', async () => {
    const t = await newTestStore();
    const warnings: string[] = [];
    const created = await t.store.create(
      t.rt('MachineConfigPool'),
      undefined,
      { metadata: { name: 'w', bogus: 1 }, spec: { paused: true, pasued: true }, extra: {} },
      { ...admin, warnings },
    );
    expect(warnings).toEqual([
      'unknown field "extra"',
      'unknown field "metadata.bogus"',
      'unknown field "spec.pasued"',
    ]);
    expect(created['spec']).toEqual({ paused: true });
    expect(created['extra']).toBeUndefined();
    const quiet: string[] = [];
    await t.store.create(
      t.rt('MachineConfigPool'),
      undefined,
      { metadata: { name: 'x' }, spec: { z: 1 } },
      { ...admin, fieldValidation: 'Ignore', warnings: quiet },
    );
    expect(quiet).toEqual([]);
  });

  it('with Strict lists every unknown field, with list indexes', async () => {
    const t = await newTestStore();
    const call = t.store.create(
      t.rt('Node'),
      undefined,
      {
        metadata: { name: 'n' },
        spec: { taints: [{ key: 'a', effect: 'NoSchedule', colour: 'red' }] },
        sepc: {},
      },
      { ...admin, fieldValidation: 'Strict' },
    );
    expect((await failure(call)).message).toBe(
      'strict decoding error: unknown field "sepc", unknown field "spec.taints[0].colour"',
    );
  });

  it('keeps what a schema preserves (pod specs, raw Ignition configs)', async () => {
    const t = await newTestStore();
    const pod = await t.store.create(
      t.rt('Pod'),
      'default',
      {
        metadata: { name: 'p' },
        spec: {
          containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }],
          dnsPolicy: 'None',
        },
      },
      { ...admin, fieldValidation: 'Strict' },
    );
    expect(pod['spec']).toEqual({
      containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }],
      dnsPolicy: 'None',
    });
  });
});
