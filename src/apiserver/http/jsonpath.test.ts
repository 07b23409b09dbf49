import { describe, expect, it } from 'vitest';
import { describeJsonPathError, evaluateJsonPath, parseJsonPath } from './jsonpath.js';

const pool = {
  metadata: {
    name: 'worker',
    annotations: {
      'machineconfiguration.openshift.io/generated-by-controller-version': 'abc123',
      plain: 'p',
    },
  },
  spec: { config: { ignition: { version: '3.4.0' } }, paused: false },
  status: {
    machineCount: 3,
    conditions: [
      { type: 'Updated', status: 'True' },
      { type: 'Updating', status: 'False' },
      { type: 'Degraded', status: 'False', observedGeneration: 2 },
    ],
    list: [10, 20, 30, 40],
    nested: { a: { name: 'x' }, b: { name: 'y' } },
  },
};

function run(path: string, root: unknown = pool): unknown[] {
  const parsed = parseJsonPath(path);
  if (!parsed.ok) throw new Error(describeJsonPathError(parsed.error));
  return evaluateJsonPath(parsed.value, root);
}

describe('evaluateJsonPath', () => {
  it.each<[string, unknown[]]>([
    ['.metadata.name', ['worker']],
    ['{.metadata.name}', ['worker']],
    ['$.metadata.name', ['worker']],
    ['.spec.config.ignition.version', ['3.4.0']],
    ['.spec.paused', [false]],
    ['.status.machineCount', [3]],
    [
      '.metadata.annotations.machineconfiguration\\.openshift\\.io/generated-by-controller-version',
      ['abc123'],
    ],
    ["['metadata']['name']", ['worker']],
    ['.status.conditions[?(@.type=="Updated")].status', ['True']],
    ['.status.conditions[?(@.type == "Degraded")].status', ['False']],
    [".status.conditions[?(@.type=='Updating')].status", ['False']],
    ['.status.conditions[?(@.type!="Updated")].type', ['Updating', 'Degraded']],
    ['.status.conditions[?(@.observedGeneration)].type', ['Degraded']],
    ['.status.conditions[?(@.observedGeneration>=2)].type', ['Degraded']],
    ['.status.conditions[?(@.observedGeneration<2)].type', []],
    ['.status.conditions[?(@.type=="Nope")].status', []],
    ['.status.conditions[0].type', ['Updated']],
    ['.status.conditions[-1].type', ['Degraded']],
    ['.status.conditions[*].status', ['True', 'False', 'False']],
    ['.status.list[1:3]', [20, 30]],
    ['.status.list[::2]', [10, 30]],
    ['.status.list[0,3]', [10, 40]],
    ['.status.list[9]', []],
    ['.status.nested.*.name', ['x', 'y']],
    ['..name', ['worker', 'x', 'y']],
    ['.status.nosuch.deeper', []],
    ['.metadata.name.deeper', []],
    ['.status.conditions.type', []],
  ])('%s', (path, expected) => {
    expect(run(path)).toEqual(expected);
  });

  it('returns objects and arrays as they are', () => {
    expect(run('.spec.config')).toEqual([{ ignition: { version: '3.4.0' } }]);
  });

  it.each(['.status[', '.status.conditions[?(@.type=="x"].status', '.a.[b', '.x[1:2:3:4]'])(
    'rejects %s',
    (path) => {
      const parsed = parseJsonPath(path);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok)
        expect(describeJsonPathError(parsed.error)).toMatch(/^unrecognized JSONPath /);
    },
  );
});
