/**
 * `mco controller` as a real process (the built binary) against a real `mco apiserver`: with
 * leader election it takes the Lease, generates the template configs from the bundled templates,
 * renders a pool, serves the pool metrics, and on SIGTERM releases the Lease and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../src/api/coordination/v1/lease.js';
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import { Resources } from '../../src/api/resource-refs.js';
import { McoVersion } from '../../src/version.js';
import { pool } from '../support/machine-configs.js';
import { RepoRoot } from '../e2e/apiserver-harness.js';
import { ControllerHarness, eventually } from './controller-harness.js';

let h: ControllerHarness;
let child: ChildProcess | undefined;
let stderr = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      s.close(() => {
        resolve(port);
      });
    });
  });
}

beforeAll(async () => {
  h = await ControllerHarness.start();
});

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  await h.dispose();
});

describe('mco controller (process)', () => {
  it('leads, renders, serves metrics, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    child = spawn(
      process.execPath,
      [
        `${RepoRoot}bin/mco.js`,
        'controller',
        '--kubeconfig',
        h.server.kubeconfig('controller'),
        '--leader-elect',
        '--leader-elect-identity',
        'test-controller',
        '--leader-elect-lease-duration',
        '4s',
        '--leader-elect-renew-deadline',
        '3s',
        '--leader-elect-retry-period',
        '1s',
        '--render-delay',
        '100ms',
        '--node-update-delay',
        '100ms',
        '--metrics-port',
        String(port),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));

    await eventually('the Lease taken', async () => {
      const lease = await h.tryGet<Lease>(
        Resources.lease,
        'machine-config-controller',
        'openshift-machine-config-operator',
      );
      return lease?.spec?.holderIdentity === 'test-controller';
    });
    await h.admin.create<ControllerConfig>(Resources.controllerConfig, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: {
        name: 'machine-config-controller',
        annotations: { 'machineconfiguration.openshift.io/generated-by-version': McoVersion.raw },
      },
      spec: {
        clusterDNSIP: '172.30.0.10',
        cloudProviderConfig: '',
        kubeAPIServerServingCAData: '',
        rootCAData: '',
        cloudProviderCAData: null,
        additionalTrustBundle: null,
        images: {},
        releaseImage: 'quay.io/test/release:latest',
        baseOSContainerImage: 'quay.io/test/os:1',
        baseOSExtensionsContainerImage: '',
        proxy: null,
        infra: null,
        dns: null,
        ipFamilies: 'IPv4',
        network: null,
      },
    });
    await h.create(Resources.machineConfigPool, pool('worker'));
    await eventually(
      'worker rendered from the bundled templates',
      async () => {
        const p = await h.pool('worker');
        return (
          (p.spec.configuration?.source ?? []).map((s) => s.name).join() ===
          '00-worker,01-worker-container-runtime,01-worker-kubelet'
        );
      },
      30_000,
    );
    await eventually('pool metrics served', async () => {
      const res = await fetch(`http://127.0.0.1:${String(port)}/metrics`).catch(() => undefined);
      const text = res === undefined ? '' : await res.text();
      return text.includes('mco_machine_count{pool="worker"} 0');
    });
    // The Manager's controllers report controller-runtime's and the work queues' metrics.
    const served = await (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
    expect(served).toMatch(
      /^controller_runtime_reconcile_total\{controller="machineconfigcontroller-rendercontroller",result="success"\} [1-9]/m,
    );
    expect(served).toMatch(
      /^workqueue_adds_total\{name="machineconfigcontroller-rendercontroller"\} [1-9]/m,
    );
    expect(served).toMatch(
      /^controller_runtime_max_concurrent_reconciles\{controller="machineconfigcontroller-draincontroller"\} 5$/m,
    );

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lease = await h.get<Lease>(
      Resources.lease,
      'machine-config-controller',
      'openshift-machine-config-operator',
    );
    expect(lease.spec?.holderIdentity ?? '').toBe('');
    expect(stderr).toContain('machine-config-controller stopped');
  });
});
