import { describe, expect, it } from 'vitest';
import { newTestApp, type TestApp } from '../../../test/support/apiserver-test-app.js';

const MCO = 'machineconfiguration.openshift.io';
const POOLS = `/apis/${MCO}/v1/machineconfigpools`;
const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

const json = (body: unknown, method = 'POST', contentType = 'application/json'): RequestInit => ({
  method,
  headers: { 'Content-Type': contentType },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const pool = (name: string): Record<string, unknown> => ({
  apiVersion: `${MCO}/v1`,
  kind: 'MachineConfigPool',
  metadata: { name },
  spec: { paused: false },
});

async function withPools(...names: string[]): Promise<TestApp> {
  const t = await newTestApp();
  for (const name of names) expect((await t.call(POOLS, json(pool(name)))).status).toBe(201);
  return t;
}

describe('create, get, list', () => {
  it('creates with 201 and answers AlreadyExists on a second create', async () => {
    const t = await newTestApp();
    const res = await t.call(
      `${POOLS}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict`,
      json(pool('worker')),
    );
    expect(res.status).toBe(201);
    const created = (await res.json()) as { kind: string; metadata: Record<string, unknown> };
    expect(created).toMatchObject({
      kind: 'MachineConfigPool',
      metadata: { name: 'worker', generation: 1 },
    });
    expect(created.metadata['uid']).toMatch(/^uid-\d+$/);
    const again = await t.call(POOLS, json(pool('worker')));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      reason: 'AlreadyExists',
      message: `machineconfigpools.${MCO} "worker" already exists`,
    });
  });

  it('does not store a dryRun create', async () => {
    const t = await newTestApp();
    expect((await t.call(`${POOLS}?dryRun=All`, json(pool('worker')))).status).toBe(201);
    expect((await t.call(`${POOLS}/worker`)).status).toBe(404);
  });

  it('lists as <Kind>List with the resourceVersion', async () => {
    const t = await withPools('worker', 'master');
    const list = (await (await t.call(`${POOLS}?limit=500`)).json()) as {
      kind: string;
      apiVersion: string;
      metadata: { resourceVersion: string };
      items: { metadata: { name: string } }[];
    };
    expect(list.kind).toBe('MachineConfigPoolList');
    expect(list.apiVersion).toBe(`${MCO}/v1`);
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.items.map((i) => i.metadata.name)).toEqual(['master', 'worker']);
  });

  it('pages with limit and continue', async () => {
    const t = await withPools('a', 'b', 'c');
    const first = (await (await t.call(`${POOLS}?limit=2`)).json()) as {
      metadata: { continue?: string };
      items: unknown[];
    };
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    const rest = (await (
      await t.call(`${POOLS}?limit=2&continue=${encodeURIComponent(first.metadata.continue ?? '')}`)
    ).json()) as {
      items: { metadata: { name: string } }[];
    };
    expect(rest.items.map((i) => i.metadata.name)).toEqual(['c']);
  });

  it('answers a Table for the kubectl get Accept, honouring includeObject', async () => {
    const t = await withPools('worker');
    t.clock.advance(3 * 3600_000);
    const table = (await (
      await t.call(`${POOLS}?limit=500`, { headers: { Accept: TABLE } })
    ).json()) as {
      kind: string;
      rows: { cells: unknown[]; object: { kind: string; metadata?: unknown; spec?: unknown } }[];
    };
    expect(table.kind).toBe('Table');
    expect(table.rows[0]?.cells).toEqual([
      'worker',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      '3h',
    ]);
    expect(table.rows[0]?.object.kind).toBe('PartialObjectMetadata');
    const full = (await (
      await t.call(`${POOLS}?includeObject=Object`, { headers: { Accept: TABLE } })
    ).json()) as typeof table;
    expect(full.rows[0]?.object).toMatchObject({
      kind: 'MachineConfigPool',
      spec: { paused: false },
    });
    const none = (await (
      await t.call(`${POOLS}?includeObject=None`, { headers: { Accept: TABLE } })
    ).json()) as typeof table;
    expect(none.rows[0]).not.toHaveProperty('object');
    const one = (await (
      await t.call(`${POOLS}/worker`, { headers: { Accept: TABLE } })
    ).json()) as typeof table & {
      metadata: { resourceVersion: string };
    };
    expect(one.rows).toHaveLength(1);
    expect(one.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('answers PartialObjectMetadataList', async () => {
    const t = await withPools('worker');
    const list = (await (
      await t.call(POOLS, {
        headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
      })
    ).json()) as { kind: string; items: { kind: string; metadata: { name: string } }[] };
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.items[0]).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'worker' },
    });
  });

  it('answers 404 with the NotFound Status', async () => {
    const res = await (await newTestApp()).call(`${POOLS}/nosuch`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `machineconfigpools.${MCO} "nosuch" not found`,
      reason: 'NotFound',
      details: { name: 'nosuch', group: MCO, kind: 'machineconfigpools' },
      code: 404,
    });
  });
});

describe('request bodies', () => {
  it('answers malformed JSON with the real 400', async () => {
    const res = await (await newTestApp()).call(POOLS, json('{"apiVersion":"x",'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      reason: 'BadRequest',
      message:
        'the object provided is unrecognized (must be of type MachineConfigPool): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"x",)',
    });
  });

  it('accepts YAML', async () => {
    const t = await newTestApp();
    const res = await t.call(
      POOLS,
      json(
        `apiVersion: ${MCO}/v1\nkind: MachineConfigPool\nmetadata:\n  name: infra\nspec: {}\n`,
        'POST',
        'application/yaml',
      ),
    );
    expect(res.status).toBe(201);
  });

  it('creates a Namespace from the protobuf kubectl create namespace sends', async () => {
    const t = await newTestApp();
    const name = new TextEncoder().encode('team-a');
    const meta = [0x0a, name.length, ...name];
    const raw = [0x0a, meta.length, ...meta, 0x12, 0x00, 0x1a, 0x00];
    const typeMeta = [0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, ...new TextEncoder().encode('Namespace')];
    const body = new Uint8Array([
      0x6b,
      0x38,
      0x73,
      0x00,
      0x0a,
      typeMeta.length,
      ...typeMeta,
      0x12,
      raw.length,
      ...raw,
      0x1a,
      0x00,
      0x22,
      0x00,
    ]);
    const res = await t.call('/api/v1/namespaces', {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
      body,
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ kind: 'Namespace', metadata: { name: 'team-a' } });
  });

  it('refuses protobuf for custom resources with 415', async () => {
    const res = await (
      await newTestApp()
    ).call(POOLS, json('k8s\0', 'POST', 'application/vnd.kubernetes.protobuf'));
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    });
  });

  it('returns the store warnings as Warning headers', async () => {
    const t = await newTestApp();
    const res = await t.call(
      `${POOLS}?fieldValidation=Warn`,
      json({ ...pool('worker'), spec: { paused: false, bogus: 1 } }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('Warning')).toBe('299 - "unknown field \\"spec.bogus\\""');
  });
});

describe('update and patch', () => {
  it('answers a stale update with Conflict', async () => {
    const t = await withPools('worker');
    const current = (await (await t.call(`${POOLS}/worker`)).json()) as {
      metadata: { resourceVersion: string };
    };
    const updated = { ...current, spec: { paused: true } };
    expect((await t.call(`${POOLS}/worker`, json(updated, 'PUT'))).status).toBe(200);
    const stale = await t.call(
      `${POOLS}/worker`,
      json({ ...updated, spec: { paused: false } }, 'PUT'),
    );
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on machineconfigpools.${MCO} "worker": the object has been modified; please apply your changes to the latest version and try again`,
    });
  });

  it('merge-patches and json-patches, ignoring the charset parameter', async () => {
    const t = await withPools('worker');
    const merged = await t.call(
      `${POOLS}/worker?fieldManager=kubectl-patch`,
      json({ spec: { paused: true } }, 'PATCH', 'application/merge-patch+json; charset=utf-8'),
    );
    expect(merged.status).toBe(200);
    expect(await merged.json()).toMatchObject({
      spec: { paused: true },
      metadata: { generation: 2 },
    });
    const patched = await t.call(
      `${POOLS}/worker`,
      json(
        [{ op: 'replace', path: '/spec/paused', value: false }],
        'PATCH',
        'application/json-patch+json',
      ),
    );
    expect(await patched.json()).toMatchObject({ spec: { paused: false } });
  });

  it('patches the status subresource', async () => {
    const t = await withPools('worker');
    const res = await t.call(
      `${POOLS}/worker/status`,
      json({ status: { machineCount: 4 } }, 'PATCH', 'application/merge-patch+json'),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: { machineCount: 4 } });
  });

  it('answers strategic merge patch on a custom resource with 415', async () => {
    const t = await withPools('worker');
    const res = await t.call(
      `${POOLS}/worker`,
      json({ spec: { paused: true } }, 'PATCH', 'application/strategic-merge-patch+json'),
    );
    expect(res.status).toBe(415);
    expect(await res.text()).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415}',
    );
  });

  it('lists strategic merge patch for built-ins', async () => {
    const res = await (
      await newTestApp()
    ).call('/api/v1/namespaces/default', json('{}', 'PATCH', 'application/json'));
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    });
  });

  it('requires a fieldManager for apply and creates on apply (201)', async () => {
    const t = await newTestApp();
    const missing = await t.call(
      `${POOLS}/infra`,
      json(pool('infra'), 'PATCH', 'application/apply-patch+yaml'),
    );
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'PatchOptions',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ],
      },
      code: 422,
    });
    const applied = await t.call(
      `${POOLS}/infra?fieldManager=kubectl&fieldValidation=Strict&force=false`,
      json(pool('infra'), 'PATCH', 'application/apply-patch+yaml'),
    );
    expect(applied.status).toBe(201);
  });
});

describe('delete and eviction', () => {
  it('answers a finished custom-resource delete with a Success Status', async () => {
    const t = await withPools('worker');
    const uid = ((await (await t.call(`${POOLS}/worker`)).json()) as { metadata: { uid: string } })
      .metadata.uid;
    const res = await t.call(
      `${POOLS}/worker`,
      json({ propagationPolicy: 'Background' }, 'DELETE'),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'worker', group: MCO, kind: 'machineconfigpools', uid },
    });
    expect((await t.call(`${POOLS}/worker`)).status).toBe(404);
  });

  it('answers a delete held by finalizers with the object', async () => {
    const t = await newTestApp();
    await t.call(
      POOLS,
      json({ ...pool('worker'), metadata: { name: 'worker', finalizers: ['example.com/hold'] } }),
    );
    const res = await t.call(`${POOLS}/worker`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    const held = (await res.json()) as { kind: string; metadata: Record<string, unknown> };
    expect(held.kind).toBe('MachineConfigPool');
    expect(held.metadata['deletionTimestamp']).toBe('2026-11-29T09:15:00Z');
  });

  it('ignores a protobuf DeleteOptions body and honours dryRun', async () => {
    const t = await withPools('worker');
    const dry = await t.call(`${POOLS}/worker?dryRun=All`, {
      method: 'DELETE',
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
      body: 'k8s\0\x0a\x02',
    });
    expect(dry.status).toBe(200);
    expect((await t.call(`${POOLS}/worker`)).status).toBe(200);
  });

  it('deletes a collection by label', async () => {
    const t = await newTestApp();
    await t.call(POOLS, json({ ...pool('a'), metadata: { name: 'a', labels: { tier: 'x' } } }));
    await t.call(POOLS, json(pool('b')));
    const res = await t.call(`${POOLS}?labelSelector=tier%3Dx`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { items: { metadata: { name: string } }[] }).items.map(
        (i) => i.metadata.name,
      ),
    ).toEqual(['a']);
    const left = (await (await t.call(POOLS)).json()) as {
      items: { metadata: { name: string } }[];
    };
    expect(left.items.map((i) => i.metadata.name)).toEqual(['b']);
  });

  it('evicts a pod with 201 Success', async () => {
    const t = await newTestApp();
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [{ name: 'a', image: 'nginx' }] },
    };
    expect((await t.call('/api/v1/namespaces/default/pods', json(pod))).status).toBe(201);
    const eviction = {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'web', namespace: 'default' },
      deleteOptions: {},
    };
    const res = await t.call('/api/v1/namespaces/default/pods/web/eviction', json(eviction));
    expect(res.status).toBe(201);
    expect(await res.text()).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}',
    );
  });
});

describe('watch requests that fail before streaming', () => {
  it('rejects sendInitialEvents with the 422 client-go falls back on', async () => {
    const res = await (
      await newTestApp()
    ).call(
      `${POOLS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
    );
    expect(res.status).toBe(422);
    expect(await res.text()).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \\"\\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","field":"sendInitialEvents"}]},"code":422}',
    );
  });
});

describe('YAML', () => {
  it('answers Accept: application/yaml with the object and lists as YAML, keys sorted', async () => {
    const t = await withPools('worker');
    const one = await t.call(`${POOLS}/worker`, { headers: { Accept: 'application/yaml' } });
    expect(one.status).toBe(200);
    expect(one.headers.get('Content-Type')).toBe('application/yaml');
    const text = await one.text();
    expect(text).toMatch(
      /^apiVersion: machineconfiguration\.openshift\.io\/v1\nkind: MachineConfigPool\nmetadata:\n/,
    );
    expect(text).toContain('\nspec:\n  paused: false\n');
    const list = await t.call(POOLS, { headers: { Accept: 'application/yaml' } });
    expect(await list.text()).toMatch(
      /^apiVersion: machineconfiguration\.openshift\.io\/v1\nitems:\n- apiVersion:/,
    );
  });

  it('refuses a YAML watch (YAML has no stream framing) with 406', async () => {
    const t = await withPools();
    const res = await t.call(`${POOLS}?watch=true`, { headers: { Accept: 'application/yaml' } });
    expect(res.status).toBe(406);
  });
});
