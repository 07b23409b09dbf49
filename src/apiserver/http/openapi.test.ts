import { describe, expect, it } from 'vitest';
import { servedResourceTypes } from '../resource-types.js';
import { buildOpenApiV3, groupVersionDocument, schemaName } from './openapi.js';

const types = servedResourceTypes();
const MCO = 'machineconfiguration.openshift.io';

interface Doc {
  openapi: string;
  info: { version: string };
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string }[]; [k: string]: unknown }>
  >;
  components: { schemas: Record<string, Record<string, unknown>> };
}

const mcoDoc = groupVersionDocument(types, MCO, 'v1', 'v1.32.5') as unknown as Doc;
const coreDoc = groupVersionDocument(types, '', 'v1', 'v1.32.5') as unknown as Doc;

describe('per group-version document', () => {
  it('is OpenAPI 3.0 carrying the server version', () => {
    expect(mcoDoc.openapi).toBe('3.0.0');
    expect(mcoDoc.info.version).toBe('v1.32.5');
  });

  it.each([
    ['MachineConfigPool', `/apis/${MCO}/v1/machineconfigpools/{name}`],
    ['MachineConfig', `/apis/${MCO}/v1/machineconfigs/{name}`],
    ['KubeletConfig', `/apis/${MCO}/v1/kubeletconfigs/{name}`],
    ['ControllerConfig', `/apis/${MCO}/v1/controllerconfigs/{name}`],
  ])('has a PATCH op for %s with its GVK and fieldValidation on the operation', (kind, path) => {
    const patch = mcoDoc.paths[path]?.['patch'];
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({ group: MCO, version: 'v1', kind });
    expect(patch?.parameters?.map((p) => p.name)).toContain('fieldValidation');
    expect(patch?.parameters?.find((p) => p.name === 'fieldValidation')?.in).toBe('query');
  });

  it('offers strategic merge patch for built-ins only', () => {
    const content = (doc: Doc, path: string): string[] =>
      Object.keys((doc.paths[path]?.['patch']?.['requestBody'] as { content: object }).content);
    expect(content(mcoDoc, `/apis/${MCO}/v1/machineconfigs/{name}`)).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
    ]);
    expect(content(coreDoc, '/api/v1/nodes/{name}')).toContain(
      'application/strategic-merge-patch+json',
    );
  });

  it('uses the namespaced path for namespaced kinds', () => {
    const patch = coreDoc.paths['/api/v1/namespaces/{namespace}/pods/{name}']?.['patch'];
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({
      group: '',
      version: 'v1',
      kind: 'Pod',
    });
    expect(coreDoc.paths['/api/v1/nodes/{name}/status']?.['patch']).toBeDefined();
  });

  it('publishes each kind schema with an array GVK and ObjectMeta by reference', () => {
    const mcp = mcoDoc.components.schemas[`io.openshift.machineconfiguration.v1.MachineConfigPool`];
    expect(mcp?.['x-kubernetes-group-version-kind']).toEqual([
      { group: MCO, version: 'v1', kind: 'MachineConfigPool' },
    ]);
    const props = mcp?.['properties'] as Record<string, Record<string, unknown>>;
    expect(props['metadata']?.['allOf']).toEqual([
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
    ]);
    expect(props['spec']?.['type']).toBe('object');
    expect(props['kind']?.['description']).toMatch(/^Kind is a string value/);
    const objectMeta = mcoDoc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
    expect(Object.keys(objectMeta?.['properties'] as object)).toEqual(
      expect.arrayContaining(['name', 'labels', 'annotations', 'resourceVersion']),
    );
  });

  it('names built-in schemas as upstream does', () => {
    expect(Object.keys(coreDoc.components.schemas)).toContain('io.k8s.api.core.v1.Pod');
    expect(
      schemaName({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', builtIn: true }),
    ).toBe('io.k8s.api.coordination.v1.Lease');
    expect(schemaName({ group: 'apps', version: 'v1', kind: 'DaemonSet', builtIn: true })).toBe(
      'io.k8s.api.apps.v1.DaemonSet',
    );
  });
});

describe('root document', () => {
  const v3 = buildOpenApiV3(types, 'v1.32.5');
  const root = JSON.parse(v3.root) as { paths: Record<string, { serverRelativeURL: string }> };

  it('lists every group-version with a content-hash URL', () => {
    expect(Object.keys(root.paths)).toEqual(
      expect.arrayContaining(['api/v1', `apis/${MCO}/v1`, 'apis/policy/v1']),
    );
    const entry = root.paths[`apis/${MCO}/v1`];
    const doc = v3.documents.get(`apis/${MCO}/v1`);
    expect(doc?.hash).toMatch(/^[0-9A-F]{128}$/);
    expect(entry?.serverRelativeURL).toBe(`/openapi/v3/apis/${MCO}/v1?hash=${doc?.hash}`);
  });

  it('is deterministic', () => {
    expect(buildOpenApiV3(types, 'v1.32.5').root).toBe(v3.root);
  });
});
