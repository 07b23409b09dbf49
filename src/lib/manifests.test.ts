import { describe, expect, it } from 'vitest';
import { describeManifestError, parseManifests } from './manifests.js';

describe('parseManifests', () => {
  it('splits multi-document YAML and skips empty documents', () => {
    // GIVEN two objects separated by an empty document
    const text =
      'kind: A\nmetadata: {name: a}\n---\n# nothing\n---\nkind: B\nmetadata: {name: b}\n';
    // WHEN parsed
    const r = parseManifests(text, 'x.yaml');
    // THEN both objects come back in order
    expect(r).toEqual({
      ok: true,
      value: [
        { kind: 'A', metadata: { name: 'a' } },
        { kind: 'B', metadata: { name: 'b' } },
      ],
    });
  });

  it('expands List kinds, nested ones too', () => {
    const text = JSON.stringify({
      kind: 'List',
      items: [
        { kind: 'MachineConfig', metadata: { name: 'a' } },
        { kind: 'MachineConfigList', items: [{ kind: 'MachineConfig', metadata: { name: 'b' } }] },
      ],
    });
    const r = parseManifests(text, 'x.json');
    expect(r.ok && r.value.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
  });

  it.each([
    ['octal file mode as Kubernetes YAML 1.1 reads it', 'mode: 0644\n', { mode: 420 }],
    ['decimal file mode', 'mode: 420\n', { mode: 420 }],
    ['quoted string stays a string', 'v: "0644"\n', { v: '0644' }],
  ])('%s', (_name, text, expected) => {
    expect(parseManifests(text, 'x.yaml')).toEqual({ ok: true, value: [expected] });
  });

  it('reports malformed YAML with the file and line, kubectl style', () => {
    const r = parseManifests(
      'kind: MachineConfig\nmetadata:\n  name: a\n  labels: x: y\n',
      'bad.yaml',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeManifestError(r.error)).toMatch(
      /^error parsing bad\.yaml: error converting YAML to JSON: yaml: line 4: /,
    );
  });

  it('rejects duplicate keys as the Go decoder does', () => {
    const r = parseManifests('a: 1\na: 2\n', 'dup.yaml');
    expect(r.ok).toBe(false);
  });

  it('rejects a document that is not an object', () => {
    expect(parseManifests('- a\n- b\n', 'list.yaml').ok).toBe(false);
  });
});
