import { describe, expect, it } from 'vitest';
import { daemonCommandLine } from './daemon-command-line.js';
import { expandCommand } from './node-supervisor.js';

const Mco = ['/usr/bin/node', '/opt/mco/bin/mco.js'];

describe('daemonCommandLine', () => {
  it('without a daemon kubeconfig, reads and writes with the node identity', () => {
    expect(daemonCommandLine({ mco: Mco })).toEqual([
      ...Mco,
      'daemon',
      '--node',
      '{name}',
      '--root',
      '{root}',
      '--kubeconfig',
      '{kubeconfig}',
      '--host',
      'ostree',
      '--kubelet-healthz-endpoint',
      '{kubelet-healthz}',
    ]);
  });

  it('with one, reads as it and writes its Node with the kubelet kubeconfig on the node', () => {
    const argv = daemonCommandLine({
      mco: Mco,
      daemonKubeconfig: '/box/apiserver/daemon.kubeconfig',
      metricsPort: 9101,
    });
    const expanded = expandCommand(argv, {
      name: 'worker-0',
      root: '/nodes/worker-0/rootfs',
      dir: '/nodes/worker-0',
      kubeconfig: '/nodes/worker-0/rootfs/var/lib/kubelet/kubeconfig',
      'kubelet-healthz': 'http://127.0.0.1:41234/healthz',
    });
    expect(expanded.slice(2)).toEqual([
      'daemon',
      '--node',
      'worker-0',
      '--root',
      '/nodes/worker-0/rootfs',
      '--kubeconfig',
      '/box/apiserver/daemon.kubeconfig',
      '--node-kubeconfig',
      '/var/lib/kubelet/kubeconfig',
      '--host',
      'ostree',
      '--metrics-port',
      '9101',
      '--kubelet-healthz-endpoint',
      'http://127.0.0.1:41234/healthz',
    ]);
  });
});
