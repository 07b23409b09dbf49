/**
 * fast-check generators of spec 3.5 Ignition configs (canonical form) that a lower spec can
 * represent without loss, for property tests of translation, merge and serialization.
 */
import fc from 'fast-check';
import type { IgnitionConfig } from '../../src/ignition/types.js';
import { canonicalize } from '../../src/ignition/spec-layouts.js';
import type { SpecVersion } from '../../src/ignition/versions.js';

type Minor = 1 | 2 | 3 | 4 | 5;

const minorOf = (v: SpecVersion): Minor => Number(v.split('.')[1]) as Minor;

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/);
const text = fc.string({ maxLength: 8 });
const path = fc.stringMatching(/^(\/[a-z]{1,3}){1,3}$/);
const owner = fc.record({ id: fc.nat(70000), name }, { requiredKeys: [] });

/** Optional fields: each key may be absent. */
function some<T extends Record<string, fc.Arbitrary<unknown>>>(
  model: T,
  required: readonly (keyof T & string)[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(model, { requiredKeys: [...required] });
}

function resource(minor: Minor): fc.Arbitrary<Record<string, unknown>> {
  return some({
    source: fc.oneof(
      fc.constant('data:,x'),
      fc.constant(''),
      text.map((t) => `data:,${encodeURIComponent(t)}`),
    ),
    compression: fc.constantFrom('', 'gzip'),
    verification: some({ hash: fc.constant('sha512-00') }),
    ...(minor >= 1
      ? { httpHeaders: fc.array(some({ name, value: text }, ['name']), { maxLength: 2 }) }
      : {}),
  });
}

function storage(minor: Minor): fc.Arbitrary<Record<string, unknown>> {
  const mode = fc.nat(minor >= 4 ? 0o7777 : 0o777);
  const node = { path, overwrite: fc.boolean(), user: owner, group: owner };
  return some({
    files: fc.array(
      some(
        {
          ...node,
          mode,
          contents: resource(minor),
          append: fc.array(resource(minor), { maxLength: 2 }),
        },
        ['path'],
      ),
      { maxLength: 3 },
    ),
    directories: fc.array(some({ ...node, mode }, ['path']), { maxLength: 2 }),
    links: fc.array(
      some(
        { ...node, target: path, hard: fc.boolean() },
        minor <= 2 ? ['path', 'target'] : ['path'],
      ),
      {
        maxLength: 2,
      },
    ),
    disks: fc.array(
      some(
        {
          device: path,
          wipeTable: fc.boolean(),
          partitions: fc.array(
            some({
              number: fc.nat(8),
              label: name,
              sizeMiB: fc.nat(1000),
              startMiB: fc.nat(1000),
              typeGuid: fc.constant('00000000-0000-0000-0000-000000000000'),
              wipePartitionEntry: fc.boolean(),
              ...(minor >= 2
                ? { resize: fc.boolean(), shouldExist: fc.boolean() }
                : { shouldExist: fc.boolean() }),
            }),
            { maxLength: 2 },
          ),
        },
        ['device'],
      ),
      { maxLength: 2 },
    ),
    filesystems: fc.array(
      some(
        {
          device: path,
          format: fc.constantFrom('xfs', 'ext4'),
          path,
          label: name,
          options: fc.array(name, { maxLength: 2 }),
          mountOptions: fc.array(name, { maxLength: 2 }),
          wipeFilesystem: fc.boolean(),
        },
        ['device'],
      ),
      { maxLength: 2 },
    ),
    raid: fc.array(
      some(
        {
          name,
          level: fc.constantFrom('raid1', 'raid0', ''),
          devices: fc.array(path, { maxLength: 2 }),
          spares: fc.nat(2),
        },
        minor <= 2 ? ['name', 'level'] : ['name'],
      ),
      { maxLength: 2 },
    ),
    ...(minor >= 3 ? { luks: fc.array(luks(minor), { maxLength: 2 }) } : {}),
  });
}

function luks(minor: Minor): fc.Arbitrary<Record<string, unknown>> {
  const tang = some(
    {
      url: fc.constant('http://tang'),
      thumbprint: name,
      ...(minor >= 4 ? { advertisement: text } : {}),
    },
    ['url'],
  );
  return some(
    {
      name,
      device: path,
      label: name,
      options: fc.array(name, { maxLength: 2 }),
      wipeVolume: fc.boolean(),
      keyFile: resource(minor),
      clevis: some({
        tpm2: fc.boolean(),
        threshold: fc.nat(3),
        tang: fc.array(tang, { maxLength: 2 }),
      }),
      ...(minor >= 4
        ? { discard: fc.boolean(), openOptions: fc.array(name, { maxLength: 2 }) }
        : {}),
      ...(minor >= 5 ? { cex: some({ enabled: fc.boolean() }) } : {}),
    },
    ['name'],
  );
}

function passwd(minor: Minor): fc.Arbitrary<Record<string, unknown>> {
  const exists = minor >= 2 ? { shouldExist: fc.boolean() } : {};
  return some({
    users: fc.array(
      some(
        {
          name,
          sshAuthorizedKeys: fc.array(text, { maxLength: 3 }),
          passwordHash: text,
          uid: fc.nat(70000),
          groups: fc.array(name, { maxLength: 2 }),
          homeDir: path,
          shell: path,
          noCreateHome: fc.boolean(),
          system: fc.boolean(),
          ...exists,
        },
        ['name'],
      ),
      { maxLength: 2 },
    ),
    groups: fc.array(
      some({ name, gid: fc.nat(70000), system: fc.boolean(), ...exists }, ['name']),
      {
        maxLength: 2,
      },
    ),
  });
}

const systemd = some({
  units: fc.array(
    some(
      {
        name: name.map((n) => `${n}.service`),
        enabled: fc.boolean(),
        mask: fc.boolean(),
        contents: text,
        dropins: fc.array(some({ name: name.map((n) => `${n}.conf`), contents: text }, ['name']), {
          maxLength: 2,
        }),
      },
      ['name'],
    ),
    { maxLength: 3 },
  ),
});

/**
 * Spec 3.5 configs (canonical form) that translate to `version` and back without loss: only
 * fields `version` has, modes without special bits below 3.4, link targets and RAID levels set
 * below 3.3.
 */
export function arbitraryConfig(version: SpecVersion): fc.Arbitrary<IgnitionConfig> {
  const minor = minorOf(version);
  return some({
    ignition: some({
      config: some({
        merge: fc.array(resource(minor), { maxLength: 2 }),
        replace: resource(minor),
      }),
      proxy: some({ httpProxy: text, httpsProxy: text, noProxy: fc.array(name, { maxLength: 2 }) }),
      timeouts: some({ httpTotal: fc.nat(100), httpResponseHeaders: fc.nat(100) }),
      security: some({
        tls: some({ certificateAuthorities: fc.array(resource(minor), { maxLength: 2 }) }),
      }),
    }),
    storage: storage(minor),
    passwd: passwd(minor),
    systemd,
    ...(minor >= 3
      ? {
          kernelArguments: some({
            shouldExist: fc.array(name, { maxLength: 2 }),
            shouldNotExist: fc.array(name, { maxLength: 2 }),
          }),
        }
      : {}),
  }).map((raw) => {
    const ignition = (raw['ignition'] ?? {}) as Record<string, unknown>;
    const config = { ...raw, ignition: { ...ignition, version: '3.5.0' } };
    return canonicalize(config, '3.5.0') as unknown as IgnitionConfig;
  });
}
