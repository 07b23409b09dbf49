/**
 * The control plane `mco start` supervises: the API server (awaited until it answers), then the
 * operator, the controller, the machine config server and the dashboard, each a child on its
 * ports with its own identity's kubeconfig.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { McsCertificateFile } from './mcs-certificates.js';
import { mcsCaBundle, mcsTokenFile } from './start-cluster-objects.js';
import { launch, until, type StartContext } from './start-context.js';

export async function startApiServer(ctx: StartContext): Promise<ResourceClient> {
  const { layout, ports } = ctx;
  const args = [
    'apiserver',
    '--data-dir',
    layout.apiserverDir,
    '--listen',
    `127.0.0.1:${ports.apiserver}`,
    '--storage',
    'sqlite',
    // pods/log of the daemon pods reads the nodes' daemon logs
    '--nodes-dir',
    layout.nodesDir,
  ];
  const child = launch(ctx, 'apiserver', args);
  const pidFile = join(layout.apiserverDir, 'apiserver.pid');
  await until(
    ctx,
    'the API server',
    () =>
      Promise.resolve(
        existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(child.pid)
          ? true
          : undefined,
      ),
    60_000,
  );
  copyFileSync(join(layout.apiserverDir, 'admin.kubeconfig'), layout.adminKubeconfig);
  const { createKubeClient } = await import('../adapters/kube-client.js');
  const client = createKubeClient({ kubeconfigPath: layout.adminKubeconfig });
  await until(
    ctx,
    'the API server to answer',
    async () => (await client.list(Resources.namespace)) && true,
    60_000,
  );
  return client;
}

export function startControlPlane(ctx: StartContext): void {
  const { layout, ports } = ctx;
  const kubeconfig = (identity: string) => join(layout.apiserverDir, `${identity}.kubeconfig`);
  const mcsUrl = `https://127.0.0.1:${ports.mcsSecure}`;
  launch(ctx, 'operator', [
    'operator',
    '--kubeconfig',
    kubeconfig('operator'),
    '--mcs-url',
    mcsUrl,
    '--mcs-ca-file',
    mcsCaBundle(layout),
    '--mcs-token-file',
    mcsTokenFile(layout),
    '--metrics-port',
    String(ports.operatorMetrics),
    '--poll-interval',
    '1s',
    // Plays the cluster-version operator, so `mco upgrade --to-image` works on this cluster.
    '--follow-release-images',
  ]);
  launch(ctx, 'controller', [
    'controller',
    '--kubeconfig',
    kubeconfig('controller'),
    '--metrics-port',
    String(ports.controllerMetrics),
    '--render-delay',
    '1s',
    '--node-update-delay',
    '1s',
    '--drain-update-delay',
    '1s',
    ...(ctx.drainTimeout === undefined ? [] : ['--drain-timeout', ctx.drainTimeout]),
    ...(ctx.leaderElect === true
      ? [
          '--leader-elect',
          '--leader-elect-lease-duration',
          '8s',
          '--leader-elect-renew-deadline',
          '5s',
          '--leader-elect-retry-period',
          '1s',
        ]
      : []),
    // Nodes join by TLS bootstrapping: this process approves their CSRs (as OpenShift's machine
    // approver), signs them with the cluster CA (as kube-controller-manager) and labels the Nodes
    // from their Machines (as machine-api). It also builds MachineOSConfigs' images with buildah
    // (as upstream's machine-os-builder), logs in builds/logs for `mco logs machineosbuild/NAME`.
    '--controllers',
    '*,csr-signer,node-csr-approver,machine-node-link,mcs-cert-rotator,build',
    ...(ctx.mcsCertValidity === undefined ? [] : ['--mcs-cert-validity', ctx.mcsCertValidity]),
    ...(ctx.mcsCertRefresh === undefined ? [] : ['--mcs-cert-refresh', ctx.mcsCertRefresh]),
    '--build-dir',
    join(layout.dir, 'builds'),
    '--cluster-signing-cert-file',
    join(layout.apiserverDir, 'ca.crt'),
    '--cluster-signing-key-file',
    join(layout.apiserverDir, 'ca.key'),
  ]);
  launch(ctx, 'mcs', [
    'server',
    // The serving Secret as files, as the kubelet mounts it on a cluster (mcs-certificates.ts).
    '--cert',
    join(layout.mcsDir, McsCertificateFile.cert),
    '--key',
    join(layout.mcsDir, McsCertificateFile.key),
    '--tls-reload-interval',
    '1',
    '--address',
    '127.0.0.1',
    '--secure-port',
    String(ports.mcsSecure),
    '--insecure-port',
    String(ports.mcsInsecure),
    '--kubeconfig',
    kubeconfig('mcs'),
    '--apiserver-url',
    `https://127.0.0.1:${ports.apiserver}`,
    '--bootstrap-token-dir',
    layout.bootstrapTokenDir,
    '--require-token',
    mcsTokenFile(layout),
    '--metrics-port',
    String(ports.mcsMetrics),
  ]);
  launch(ctx, 'dashboard', [
    'dashboard',
    '--kubeconfig',
    layout.adminKubeconfig,
    // the node detail reads each node's deployments from its folder
    '--nodes-dir',
    layout.nodesDir,
    // the builds panel shows the build controller's logs
    '--build-logs-dir',
    layout.buildLogsDir,
    '--listen',
    `127.0.0.1:${ports.dashboard}`,
  ]);
}
