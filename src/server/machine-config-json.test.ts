import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { machineConfigJson } from './machine-config-json.js';
import { GeneratedSpecVersion } from '../ignition/versions.js';

const mc = {
  spec: { config: { ignition: { version: GeneratedSpecVersion }, z: '<&>' }, fips: true },
  metadata: {
    labels: { b: '2', a: '1' },
    name: 'rendered-x',
    creationTimestamp: '2026-01-01T00:00:00Z',
    generation: 0,
    ownerReferences: [
      { uid: 'u', name: 'worker', kind: 'MachineConfigPool', apiVersion: 'v1', controller: true },
    ],
  },
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfig',
  status: { ignored: true },
} as unknown as MachineConfig;

describe('machineConfigJson', () => {
  it('writes Go field order, sorted maps, nil lists as null, HTML-escaped strings', () => {
    expect(machineConfigJson(mc)).toBe(
      '{"kind":"MachineConfig","apiVersion":"machineconfiguration.openshift.io/v1",' +
        '"metadata":{"name":"rendered-x","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"a":"1","b":"2"},' +
        '"ownerReferences":[{"apiVersion":"v1","kind":"MachineConfigPool","name":"worker","uid":"u","controller":true}]},' +
        '"spec":{"osImageURL":"","baseOSExtensionsContainerImage":"","config":{"ignition":{"version":"3.5.0"},"z":"\\u003c\\u0026\\u003e"},' +
        '"kernelArguments":null,"extensions":null,"fips":true,"kernelType":""}}',
    );
  });

  it('indents like MarshalIndent with four spaces', () => {
    const out = machineConfigJson(
      { ...mc, metadata: { name: 'n' }, spec: { kernelArguments: [] } },
      '    ',
    );
    expect(out).toBe(
      '{\n    "kind": "MachineConfig",\n    "apiVersion": "machineconfiguration.openshift.io/v1",\n    "metadata": {\n        "name": "n"\n    },\n' +
        '    "spec": {\n        "osImageURL": "",\n        "baseOSExtensionsContainerImage": "",\n        "config": null,\n        "kernelArguments": [],\n' +
        '        "extensions": null,\n        "fips": false,\n        "kernelType": ""\n    }\n}',
    );
  });

  it('keeps a __proto__ key of the raw config as data', () => {
    const raw = JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>;
    expect(machineConfigJson({ metadata: {}, spec: { config: raw } })).toContain(
      '"config":{"__proto__":{"x":1}}',
    );
  });
});
