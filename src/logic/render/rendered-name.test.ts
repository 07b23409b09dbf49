import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { renderVector, RenderVectors } from '../../../test/support/render-vectors.js';
import type { JsonValue } from '../../lib/go-yaml.js';
import { renderedConfigHash, renderedConfigName } from './rendered-name.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

const IGNITION_ONLY = { ignition: { version: GeneratedSpecVersion } };

/** A merged MachineConfigSpec in its JSON form, defaults as the merge produces them. */
function spec(fields: { readonly [key: string]: JsonValue }): {
  readonly [key: string]: JsonValue;
} {
  return {
    osImageURL: '',
    baseOSExtensionsContainerImage: '',
    config: IGNITION_ONLY,
    kernelArguments: [],
    extensions: [],
    fips: false,
    kernelType: 'default',
    ...fields,
  };
}

describe('renderedConfigName (docs/reference/vectors.md §A)', () => {
  it.each(RenderVectors)('$id → $name', (v) => {
    expect(renderedConfigName(v.pool.metadata.name ?? '', v.spec as JsonValue)).toBe(v.name);
  });

  it('renderedConfigHash is the bare 32-digit suffix', () => {
    expect(renderedConfigHash(spec({}))).toBe('6da92b29d98fcd722bbf117520c22ee4');
  });

  it('changes when any value changes', () => {
    expect(renderedConfigHash(spec({ kernelType: 'realtime' }))).not.toBe(
      renderedConfigHash(spec({})),
    );
  });
});

/** Rebuilds every object in `value` with its keys in the order `order` gives. */
function reorder(value: JsonValue, order: (keys: string[]) => string[]): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v: JsonValue) => reorder(v, order));
  const obj = value as { readonly [key: string]: JsonValue };
  // fromEntries defines own properties, so a "__proto__" key stays a key.
  return Object.fromEntries(
    order(Object.keys(obj)).map((k) => [k, reorder(obj[k] ?? null, order)]),
  );
}

/**
 * `value` with every decimal digit in its keys made a letter. yaml.v2's key order is no total
 * order once digits and letters meet at the same place ("3A" < "4" < "30" < "3A"): there Go's
 * own output follows its random map order, so no order-independence can be asked of such keys.
 * Without digits it is a lexicographic order (non-letters by code point, then letters).
 */
function withoutDigitsInKeys(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withoutDigitsInKeys);
  const obj = value as { readonly [key: string]: JsonValue };
  return Object.fromEntries(
    Object.keys(obj).map((k) => [k.replace(/\p{Nd}/gu, 'd'), withoutDigitsInKeys(obj[k] ?? null)]),
  );
}

describe('renderedConfigName properties', () => {
  it('does not depend on the key order of the config object', () => {
    const config = fc
      .jsonValue()
      .map((v) => withoutDigitsInKeys(JSON.parse(JSON.stringify(v)) as JsonValue));
    fc.assert(
      fc.property(config, fc.integer(), (cfg, seed) => {
        const shuffle = (keys: string[]): string[] =>
          keys
            .map((k, i) => ({ k, r: (i * 7919 + seed) % 104729 }))
            .sort((x, y) => x.r - y.r)
            .map((x) => x.k);
        const original = spec({ config: cfg });
        const shuffled = spec({ config: reorder(cfg, shuffle) });
        const reversed = spec({ config: reorder(cfg, (keys) => [...keys].reverse()) });
        const name = renderedConfigName('worker', original);
        expect(renderedConfigName('worker', shuffled)).toBe(name);
        expect(renderedConfigName('worker', reversed)).toBe(name);
      }),
    );
  });

  it('does not depend on the key order of the A14 spec', () => {
    const a14 = renderVector('A14');
    const reversed = reorder(a14.spec as JsonValue, (keys) => [...keys].reverse());
    expect(renderedConfigName('worker', reversed)).toBe(a14.name);
  });
});
