import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { layoutFields, nestedStruct, type FieldSpec, type SpecLayout } from './go-layout.js';
import { IgnitionSpecs } from './ignition-specs.js';

/** Ignition's own JSON Schema of each 3.x spec, as field path → type (see the file's `source`). */
const upstream = JSON.parse(
  readFileSync(
    new URL('../../../test/fixtures/ignition-schema/upstream-config-fields.json', import.meta.url),
    'utf8',
  ),
) as { readonly specs: Readonly<Record<string, Readonly<Record<string, string>>>> };

const JSON_SCALAR = { string: 'string', int: 'integer', bool: 'boolean' } as const;

/** A layout field in the fixture's notation: the JSON Schema type upstream generates it from. */
function schemaType(f: FieldSpec): string {
  const t = f.type;
  const type = ((): string => {
    switch (t.kind) {
      case 'value':
        return JSON_SCALAR[t.scalar];
      case 'pointer':
        return `${JSON_SCALAR[t.scalar]}|null`;
      case 'struct':
        return 'object';
      case 'structPointer':
        return 'object|null';
      case 'list':
        return `array<${typeof t.item === 'string' ? JSON_SCALAR[t.item] : 'object'}>`;
    }
  })();
  return f.omitEmpty ? type : `${type} required`;
}

function layoutTypes(layout: SpecLayout): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (struct: string, prefix: string): void => {
    for (const f of layoutFields(layout, struct)) {
      const path = prefix === '' ? f.json : `${prefix}.${f.json}`;
      out[path] = schemaType(f);
      const nested = nestedStruct(f.type);
      if (nested !== undefined) walk(nested, path);
    }
  };
  walk('Config', '');
  return out;
}

describe("the layouts agree with Ignition's own JSON Schema", () => {
  const specs = Object.keys(upstream.specs);

  it('covers every 3.x spec the system supports', () => {
    expect(specs).toEqual(IgnitionSpecs.versions.filter((v) => v.startsWith('3.')));
  });

  it.each(specs)('%s: the same field paths, types, pointers and required fields', (version) => {
    const ours = layoutTypes(IgnitionSpecs.layout(version));
    const theirs = upstream.specs[version] ?? {};
    // both directions, by path first so that a missing or extra field is named
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    expect(ours).toEqual(theirs);
  });
});
