/**
 * The daemon's certificate writer end to end: a cluster of real processes (daemon-harness.ts) with
 * two workers booted by the real Ignition. A new kubelet CA is published where upstream's operator
 * reads it after bootstrap (ConfigMap `openshift-config-managed/kube-apiserver-client-ca`), with an
 * image registry CA beside it (`openshift-config-managed/image-registry-ca`, key `host..port`).
 * The operator puts both into ControllerConfig; every worker then has the new
 * `/etc/kubernetes/kubelet-ca.crt` and `/etc/docker/certs.d/<host:port>/ca.crt`, and records the
 * ControllerConfig's resourceVersion, with no drain (never cordoned, no drain request), no reboot
 * (same boot id) and no new rendered config.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import { Resources } from '../../src/api/resource-refs.js';
import { DaemonCluster, Minute, until, type SimNode } from './daemon-harness.js';
import { makeCa } from './mcs-support.js';

let cluster: DaemonCluster;

const bootId = (n: SimNode): string =>
  (JSON.parse(readFileSync(join(n.dir, 'state/booted.json'), 'utf8')) as { bootId: string }).bootId;
const workers = () => cluster.nodes.filter((n) => n.role === 'worker');

beforeAll(async () => {
  cluster = await DaemonCluster.start({ nodes: 2, maxUnavailable: 2, pods: 1 });
}, 8 * Minute);

afterAll(async () => {
  await cluster?.dispose();
}, 3 * Minute);

describe('certificate writer', { timeout: 6 * Minute }, () => {
  it('a new kubelet CA and a registry CA reach every worker in place: no drain, no reboot', async () => {
    const newCa = (await makeCa()).certPem;
    const registryCa = (await makeCa()).certPem;
    const pool = await cluster.getPool('worker');
    const rendered = pool.spec.configuration?.name;
    const before = new Map(
      await Promise.all(
        workers().map(
          async (n) => [n.name, { boot: bootId(n), a: await cluster.annotations(n.name) }] as const,
        ),
      ),
    );
    const ns = await cluster.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'openshift-config-managed' },
      }),
    );
    expect(ns.code, ns.stderr).toBe(0);
    for (const [name, key, value] of [
      ['kube-apiserver-client-ca', 'ca-bundle.crt', newCa],
      ['image-registry-ca', '127.0.0.1..5000', registryCa],
    ] as const) {
      const configMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'openshift-config-managed' },
        data: { [key]: value },
      };
      const r = await cluster.kubectl(['apply', '-f', '-'], JSON.stringify(configMap));
      expect(r.code, r.stderr).toBe(0);
    }
    const cc = await until(
      'ControllerConfig to carry the new kubelet CA and the registry CA',
      async () => {
        const c = await cluster.admin.get<ControllerConfig>(
          Resources.controllerConfig,
          'machine-config-controller',
        );
        return Buffer.from(c.spec.kubeAPIServerServingCAData, 'base64').toString() === newCa &&
          (c.spec.imageRegistryBundleData ?? []).length > 0
          ? c
          : undefined;
      },
      2 * Minute,
    );
    expect(cc.spec.imageRegistryBundleData).toEqual([
      { file: '127.0.0.1..5000', data: Buffer.from(registryCa).toString('base64') },
    ]);
    for (const n of workers()) {
      const caFile = join(n.root, 'etc/kubernetes/kubelet-ca.crt');
      const registryFile = join(n.root, 'etc/docker/certs.d/127.0.0.1:5000/ca.crt');
      const has = (file: string, pem: string) =>
        existsSync(file) && readFileSync(file, 'utf8') === `${pem.trimEnd()}\n`;
      await until(
        `${n.name} to write the new kubelet CA and the registry CA`,
        () =>
          Promise.resolve(has(caFile, newCa) && has(registryFile, registryCa) ? true : undefined),
        2 * Minute,
      );
      await until(
        `${n.name} to record the ControllerConfig it wrote`,
        async () => {
          const a = await cluster.annotations(n.name);
          const rv = (
            await cluster.admin.get<ControllerConfig>(
              Resources.controllerConfig,
              'machine-config-controller',
            )
          ).metadata.resourceVersion;
          return a[Annotation.lastSyncedControllerConfigResourceVersion] === rv ? true : undefined;
        },
        Minute,
      );
      const node = await cluster.getNode(n.name);
      const a = node.metadata.annotations ?? {};
      const was = before.get(n.name);
      expect(bootId(n), `${n.name} did not reboot`).toBe(was?.boot);
      expect(node.spec?.unschedulable ?? false, `${n.name} was not cordoned`).toBe(false);
      // the only drain request is the uncordon of the config the node already had
      expect(a[Annotation.desiredDrain] ?? `uncordon-${rendered ?? ''}`).toBe(
        `uncordon-${rendered ?? ''}`,
      );
      expect(a[Annotation.lastAppliedDrain] ?? '').not.toMatch(/^drain-/);
      expect(a[Annotation.currentConfig]).toBe(rendered);
      expect(a[Annotation.state]).toBe('Done');
      expect(cluster.daemonLog(n)).toContain('wrote certificates in place');
    }
    expect((await cluster.getPool('worker')).spec.configuration?.name).toBe(rendered);
  });
});
