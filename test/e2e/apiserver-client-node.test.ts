/**
 * @kubernetes/client-node 1.4.0 against `mco apiserver`: an informer sees every create, update and
 * delete, and keeps going across a restart of the server process on the same port and data
 * directory (it relists; client-node informers stop on errors other than 410, so the error callback
 * restarts it, as its documentation advises).
 */
import * as k8s from '@kubernetes/client-node';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startApiServer, type ApiServerProcess } from './apiserver-harness.js';

const group = 'machineconfiguration.openshift.io';
const version = 'v1';
const plural = 'machineconfigs';

interface Mc extends k8s.KubernetesObject {
  spec?: { config?: { ignition?: { version?: string } } };
}

let server: ApiServerProcess;
let co: k8s.CustomObjectsApi;
let informer: k8s.Informer<Mc> & k8s.ObjectCache<Mc>;
const events: string[] = [];
let errors = 0;
let stopped = false;

const mc = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: `${group}/${version}`,
  kind: 'MachineConfig',
  metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker', ...labels } },
  spec: { config: { ignition: { version: '3.4.0' } } },
});

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

async function create(name: string): Promise<void> {
  await co.createClusterCustomObject({ group, version, plural, body: mc(name) });
}

async function label(name: string, value: string): Promise<void> {
  await co.patchClusterCustomObject(
    { group, version, plural, name, body: { metadata: { labels: { step: value } } } },
    merge,
  );
}

async function remove(name: string): Promise<void> {
  await co.deleteClusterCustomObject({ group, version, plural, name });
}

function seen(...expected: string[]): () => boolean {
  return () => expected.every((e) => events.includes(e));
}

beforeAll(async () => {
  server = await startApiServer();
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfig('admin'));
  co = kc.makeApiClient(k8s.CustomObjectsApi);
  informer = k8s.makeInformer<Mc>(
    kc,
    `/apis/${group}/${version}/${plural}`,
    () =>
      co.listClusterCustomObject({ group, version, plural }) as Promise<
        k8s.KubernetesListObject<Mc>
      >,
  );
  const record = (type: string) => (obj: Mc) => {
    events.push(`${type} ${obj.metadata?.name ?? ''} ${obj.metadata?.labels?.['step'] ?? '-'}`);
  };
  informer.on('add', record('add'));
  informer.on('update', record('update'));
  informer.on('delete', record('delete'));
  informer.on('error', () => {
    errors += 1;
    if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 300);
  });
  await informer.start();
});

afterAll(async () => {
  stopped = true;
  await informer.stop();
  await server.dispose();
});

describe('client-node informer', () => {
  it('sees every create, update and delete', async () => {
    await create('10-a');
    await create('10-b');
    await eventually('the adds', seen('add 10-a -', 'add 10-b -'));
    await label('10-a', 'one');
    await eventually('the update', seen('update 10-a one'));
    await remove('10-b');
    await eventually('the delete', seen('delete 10-b -'));
    expect(events).toEqual(['add 10-a -', 'add 10-b -', 'update 10-a one', 'delete 10-b -']);
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['10-a']);
  });

  it('keeps going across a restart of the server process (same port, same data dir)', async () => {
    const port = server.port;
    const pid = server.pid;
    const kept = ['ca.crt', 'serving.crt', 'tokens.csv'].map((f) =>
      readFileSync(join(server.dataDir, f), 'utf8'),
    );
    expect(await server.stop('SIGTERM')).toBe(0);
    // a graceful stop removes the PID file
    expect(existsSync(join(server.dataDir, 'apiserver.pid'))).toBe(false);
    await eventually('the informer to notice the server is gone', () => errors > 0);
    await server.start({ port });
    expect(server.port).toBe(port);
    expect(server.pid).not.toBe(pid);
    // the restart reused the PKI and the credentials (the informer's kubeconfig still works)
    expect(
      ['ca.crt', 'serving.crt', 'tokens.csv'].map((f) =>
        readFileSync(join(server.dataDir, f), 'utf8'),
      ),
    ).toEqual(kept);

    await create('10-c');
    await label('10-a', 'two');
    await remove('10-a');
    await eventually(
      'the events after the restart',
      seen('add 10-c -', 'update 10-a two', 'delete 10-a two'),
      30_000,
    );
    expect(events).toEqual([
      'add 10-a -',
      'add 10-b -',
      'update 10-a one',
      'delete 10-b -',
      'add 10-c -',
      'update 10-a two',
      'delete 10-a two',
    ]);
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['10-c']);
  });
});
