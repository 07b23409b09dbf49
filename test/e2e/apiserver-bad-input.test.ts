/**
 * Bad input to the running `mco apiserver`: each request is answered with the Status the real
 * server gives, and nothing is stored (the global resourceVersion does not move).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  kubectl,
  startApiServer,
  type ApiServerProcess,
  type RequestOptions,
} from './apiserver-harness.js';

const Group = 'machineconfiguration.openshift.io';
const MCs = `/apis/${Group}/v1/machineconfigs`;
const Pools = `/apis/${Group}/v1/machineconfigpools`;

let server: ApiServerProcess;
let cacheDir: string;
let token: string;

const call = (method: string, path: string, options: RequestOptions = {}) =>
  api(server, method, path, { token, ...options });
const json = (body: unknown): RequestOptions => ({
  body: JSON.stringify(body),
  contentType: 'application/json',
});

/** The newest resourceVersion the server has handed out (a list's RV is the global revision). */
async function globalRevision(): Promise<string> {
  const list = await call('GET', '/api/v1/namespaces');
  return list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
}

/** Runs `request`, checks its Status, and that it stored nothing. */
async function rejected(
  request: () => Promise<{ status: number; json: () => Record<string, unknown> }>,
) {
  const before = await globalRevision();
  const answer = await request();
  expect(await globalRevision()).toBe(before);
  return { status: answer.status, body: answer.json() };
}

const mc = (name: string, config: unknown) => ({
  apiVersion: `${Group}/v1`,
  kind: 'MachineConfig',
  metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
  spec: { config },
});

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'mco-bad-input-kubectl-'));
  server = await startApiServer();
  token = server.token('admin');
});

afterAll(async () => {
  await server.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('bad input', () => {
  it('malformed JSON: 400 BadRequest', async () => {
    const { status, body } = await rejected(() =>
      call('POST', MCs, { body: '{"apiVersion":', contentType: 'application/json' }),
    );
    expect(status).toBe(400);
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the object provided is unrecognized (must be of type MachineConfig): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":)',
      reason: 'BadRequest',
      code: 400,
    });
  });

  it('malformed YAML: 400 BadRequest, as a body and as an apply patch', async () => {
    const created = await rejected(() =>
      call('POST', MCs, { body: 'apiVersion: v1\n  kind: : x\n', contentType: 'application/yaml' }),
    );
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ reason: 'BadRequest', code: 400 });
    expect(created.body['message']).toMatch(
      /^the object provided is unrecognized \(must be of type MachineConfig\): error converting YAML to JSON: yaml: /,
    );
    const applied = await rejected(() =>
      call('PATCH', `${MCs}/x?fieldManager=test`, {
        body: 'a: [\n',
        contentType: 'application/apply-patch+yaml',
      }),
    );
    expect(applied.status).toBe(400);
    expect(applied.body).toMatchObject({ reason: 'BadRequest', code: 400 });
    expect(applied.body['message']).toMatch(/^error decoding YAML: /);
    expect((await call('GET', `${MCs}/x`)).status).toBe(404);
  });

  it('schema violation: 422 Invalid with one cause per field', async () => {
    const pool = {
      apiVersion: `${Group}/v1`,
      kind: 'MachineConfigPool',
      metadata: { name: 'bad' },
      spec: { paused: 'yes' },
    };
    const { status, body } = await rejected(() => call('POST', Pools, json(pool)));
    expect(status).toBe(422);
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'MachineConfigPool.machineconfiguration.openshift.io "bad" is invalid: spec.paused: Invalid value: "string": spec.paused in body must be of type boolean: "string"',
      reason: 'Invalid',
      details: {
        name: 'bad',
        group: Group,
        kind: 'MachineConfigPool',
        causes: [
          {
            reason: 'FieldValueTypeInvalid',
            message:
              'Invalid value: "string": spec.paused in body must be of type boolean: "string"',
            field: 'spec.paused',
          },
        ],
      },
      code: 422,
    });
    expect((await call('GET', `${Pools}/bad`)).status).toBe(404);
  });

  it('invalid Ignition inside a MachineConfig: 422 listing the Ignition errors (kubectl shows them)', async () => {
    const bad = mc('99-bad-ignition', {
      ignition: { version: '3.4.0' },
      storage: { files: [{ path: 'relative/path', contents: { source: 'data:,x' } }] },
      systemd: { units: [{ name: 'foo' }] },
    });
    const { status, body } = await rejected(() => call('POST', MCs, json(bad)));
    expect(status).toBe(422);
    expect(body['details']).toEqual({
      name: '99-bad-ignition',
      group: Group,
      kind: 'MachineConfig',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "relative/path": path not absolute',
          field: 'spec.config.storage.files[0].path',
        },
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "foo": invalid systemd unit extension',
          field: 'spec.config.systemd.units[0].name',
        },
      ],
    });
    const before = await globalRevision();
    const result = await kubectl(['apply', '-f', '-'], {
      kubeconfig: server.kubeconfig(),
      cacheDir,
      input: JSON.stringify(bad),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'The MachineConfig "99-bad-ignition" is invalid: \n' +
        '* spec.config.storage.files[0].path: Invalid value: "relative/path": path not absolute\n' +
        '* spec.config.systemd.units[0].name: Invalid value: "foo": invalid systemd unit extension\n',
    );
    expect(await globalRevision()).toBe(before);
    expect((await call('GET', `${MCs}/99-bad-ignition`)).status).toBe(404);
  });

  it('stale resourceVersion: 409 Conflict, and the stored object keeps the newer write', async () => {
    const created = await call(
      'POST',
      MCs,
      json(mc('99-conflict', { ignition: { version: '3.4.0' } })),
    );
    expect(created.status).toBe(201);
    const first = created.json<{
      metadata: { resourceVersion: string; labels: Record<string, string> };
    }>();
    const newer = await call('PATCH', `${MCs}/99-conflict`, {
      body: JSON.stringify({ metadata: { labels: { newer: 'yes' } } }),
      contentType: 'application/merge-patch+json',
    });
    expect(newer.status).toBe(200);
    const stale = {
      ...mc('99-conflict', { ignition: { version: '3.4.0' } }),
      metadata: { ...first.metadata, labels: { stale: 'yes' } },
    };
    const { status, body } = await rejected(() => call('PUT', `${MCs}/99-conflict`, json(stale)));
    expect(status).toBe(409);
    expect(body).toMatchObject({
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on machineconfigs.machineconfiguration.openshift.io "99-conflict": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: '99-conflict', group: Group, kind: 'machineconfigs' },
    });
    const stored = (await call('GET', `${MCs}/99-conflict`)).json<{
      metadata: { labels: Record<string, string> };
    }>();
    expect(stored.metadata.labels).toEqual({
      'machineconfiguration.openshift.io/role': 'worker',
      newer: 'yes',
    });
  });

  it('unknown kind: 404 NotFound (and kubectl finds no mapping)', async () => {
    const { status, body } = await rejected(() =>
      call(
        'POST',
        `/apis/${Group}/v1/widgets`,
        json({ apiVersion: `${Group}/v1`, kind: 'Widget', metadata: { name: 'w' } }),
      ),
    );
    expect(status).toBe(404);
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    // --validate=false: with validation on, kubectl looks the kind up in /openapi/v2 first (the
    // server serves v3 only), and would report that instead of the missing mapping.
    const result = await kubectl(['apply', '--validate=false', '-f', '-'], {
      kubeconfig: server.kubeconfig(),
      cacheDir,
      input: JSON.stringify({ apiVersion: `${Group}/v1`, kind: 'Widget', metadata: { name: 'w' } }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: resource mapping not found for name: "w" namespace: "" from "STDIN": no matches for kind "Widget" in version "${Group}/v1"\nensure CRDs are installed first\n`,
    );
  });
});
