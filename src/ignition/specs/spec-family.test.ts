import { describe, expect, it } from 'vitest';
import { err, ok } from '../../lib/result.js';
import { toCanonicalForm, type JsonRecord } from '../canonical-form.js';
import { negotiateSpecVersion, negotiateSpecVersionIn } from '../negotiate.js';
import { carryDown } from '../translate-down-steps.js';
import { translateDownIn } from '../translate-down.js';
import { validateIgnitionIn } from '../validate/validate.js';
import { InternalSpecVersion } from '../versions.js';
import { amendLayout, layoutFieldPaths } from './go-layout.js';
import { IgnitionSpecs, SpecRows } from './ignition-specs.js';
import { specFamily, type DownStep, type SpecRow } from './spec-family.js';
import { LayoutV3_5 } from './v3-5.js';

// A spec that exists only here: what adding spec 3.6 to the system takes. One delta table (a
// systemd unit gains `preset`), one down step (a preset becomes `enabled`, as systemctl preset
// would decide it, and anything else is refused), one row.
const Experimental = '3.6.0-experimental';

const layoutV3_6Experimental = amendLayout(LayoutV3_5, {
  structs: {
    Unit: [...(LayoutV3_5.structs['Unit'] ?? []), 'preset *string'],
  },
});

const down36to35: DownStep = (config, specs) => {
  const systemd = config['systemd'] as JsonRecord | undefined;
  const units = (systemd?.['units'] ?? []) as JsonRecord[];
  const converted: JsonRecord[] = [];
  for (const [i, u] of units.entries()) {
    const { preset, ...rest } = u;
    if (preset === undefined) converted.push(u);
    else if (preset === 'enable' || preset === 'disable')
      converted.push({ ...rest, enabled: preset === 'enable' });
    else
      return err({
        path: ['systemd', 'units', i, 'preset'],
        message: `preset ${JSON.stringify(preset)} cannot be expressed in spec v3.5`,
      });
  }
  return carryDown(
    systemd === undefined ? config : { ...config, systemd: { ...systemd, units: converted } },
    specs,
  );
};

const rowV3_6Experimental: SpecRow = {
  version: Experimental,
  minor: 6,
  layout: layoutV3_6Experimental,
  down: { [InternalSpecVersion]: down36to35 },
};

const family = specFamily([...SpecRows, rowV3_6Experimental]);

const unitConfig = (version: string, unit: JsonRecord): JsonRecord => ({
  ignition: { version },
  systemd: { units: [{ name: 'kubelet.service', ...unit }] },
});

describe('a family with a spec of the test’s own (one row, one delta table, one down step)', () => {
  it('takes the new spec as the internal one and lists it with the others', () => {
    expect(family.internal).toBe(Experimental);
    expect(family.versions).toEqual([...IgnitionSpecs.versions, Experimental]);
    expect(family.minorsText).toBe(`${IgnitionSpecs.minorsText},3.6`);
    expect(layoutFieldPaths(family.layout(Experimental))).toEqual([
      ...layoutFieldPaths(family.layout(InternalSpecVersion)),
      'systemd.units.preset',
    ]);
    // the module's own family is untouched
    expect(IgnitionSpecs.internal).toBe(InternalSpecVersion);
    expect(IgnitionSpecs.isVersion(Experimental)).toBe(false);
  });

  it('validates the new field under the new spec, with its Go type', () => {
    const config = unitConfig(Experimental, { preset: 'enable' });
    expect(validateIgnitionIn(family, config, Experimental).entries).toEqual([]);
    expect(
      validateIgnitionIn(family, unitConfig(Experimental, { preset: 7 }), Experimental).entries,
    ).toEqual([
      {
        kind: 'error',
        path: [],
        message:
          'json: cannot unmarshal number into Go struct field Unit.systemd.units.preset of type string',
      },
    ]);
  });

  it('does not know the new field under 3.5: Ignition warns of an unused key and drops it', () => {
    const config = unitConfig(InternalSpecVersion, { preset: 'enable' });
    expect(validateIgnitionIn(family, config, InternalSpecVersion).entries).toEqual([
      { kind: 'warning', path: ['systemd', 'units', 0, 'preset'], message: 'Unused key preset' },
    ]);
    expect(toCanonicalForm(config, family.layout(InternalSpecVersion))).toEqual(
      unitConfig(InternalSpecVersion, {}),
    );
    expect(toCanonicalForm(config, family.layout(Experimental))).toEqual(config);
  });

  it('translates down through its step, then through the supported specs’ steps', () => {
    const config = unitConfig(Experimental, { preset: 'disable' });
    expect(translateDownIn(family, config, InternalSpecVersion)).toEqual(
      ok({
        version: InternalSpecVersion,
        config: unitConfig(InternalSpecVersion, { enabled: false }),
      }),
    );
    expect(translateDownIn(family, config, '3.2.0')).toEqual(
      ok({ version: '3.2.0', config: unitConfig('3.2.0', { enabled: false }) }),
    );
    expect(translateDownIn(family, unitConfig(Experimental, { preset: 'mask' }), '3.1.0')).toEqual(
      err({
        kind: 'Unrepresentable',
        from: Experimental,
        to: InternalSpecVersion,
        path: ['systemd', 'units', 0, 'preset'],
        message: 'preset "mask" cannot be expressed in spec v3.5',
      }),
    );
    expect(translateDownIn(family, config, '3.0.0')).toEqual(
      err({ kind: 'NoConversionPath', from: Experimental, to: '3.0.0' }),
    );
  });

  const ask = (v: string): string => `application/vnd.coreos.ignition+json;version=${v}, */*;q=0.1`;

  it.each([
    [Experimental, Experimental],
    ['3.6.0', Experimental],
    ['3.7.0', Experimental],
    [InternalSpecVersion, InternalSpecVersion],
    ['2.4.0', '2.2.0'],
  ])('negotiation answers a client asking for %s with %s', (asked, served) => {
    expect(negotiateSpecVersionIn(family, ask(asked))).toEqual(ok(served));
  });

  it('leaves the module’s negotiation clamped to its own internal spec', () => {
    expect(negotiateSpecVersion(ask('3.6.0'))).toEqual(ok(InternalSpecVersion));
  });
});

describe('specFamily refuses rows that do not make a family', () => {
  const base = SpecRows.slice(0, 2);
  it.each<[string, readonly SpecRow[], string]>([
    ['no rows', [], 'ignition specs: no rows'],
    ['a version twice', [...base, base[1] as SpecRow], 'ignition specs: 3.0.0 twice'],
    [
      'a minor its version does not have',
      [...base, { ...rowV3_6Experimental, minor: 7 }],
      'ignition specs: 3.6.0-experimental is not minor 7',
    ],
    [
      'a step down to a spec it lacks',
      [...base, rowV3_6Experimental],
      'ignition specs: 3.6.0-experimental steps down to unknown 3.5.0',
    ],
    [
      'a field holding a struct the layout does not declare',
      [
        ...base,
        {
          version: '3.1.0',
          minor: 1,
          layout: amendLayout(LayoutV3_5, { removed: ['Cex'] }),
        },
      ],
      'ignition layout 3.1.0: Luks.cex holds undeclared Cex',
    ],
  ])('%s', (_, rows, message) => {
    expect(() => specFamily(rows)).toThrow(message);
  });
});
