import { describe, expect, it } from 'vitest';
import { nodeSpecs } from './cluster-nodes.js';
import { clusterPorts, daemonMetricsPort, metricsTargets } from './cluster-ports.js';

describe('the box metrics endpoints', () => {
  const ports = clusterPorts(40_000);
  const nodes = nodeSpecs(1, 2);

  it('gives each daemon its own port after the control plane ports', () => {
    const used = Object.values(ports);
    const daemons = nodes.map((n) => daemonMetricsPort(ports, nodes, n.name));
    expect(daemons).toEqual([40_007, 40_008, 40_009]);
    for (const p of daemons) expect(used).not.toContain(p);
  });

  it('lists every endpoint once, for Prometheus file_sd', () => {
    const targets = metricsTargets(ports, nodes);
    const all = targets.flatMap((t) => t.targets);
    expect(new Set(all).size).toBe(all.length);
    expect(targets.filter((t) => t.labels['job'] === 'machine-config-daemon')).toEqual([
      { targets: ['127.0.0.1:40007'], labels: { job: 'machine-config-daemon', node: 'master-0' } },
      { targets: ['127.0.0.1:40008'], labels: { job: 'machine-config-daemon', node: 'worker-0' } },
      { targets: ['127.0.0.1:40009'], labels: { job: 'machine-config-daemon', node: 'worker-1' } },
    ]);
    expect(all).toContain(`127.0.0.1:${ports.controllerMetrics}`);
  });
});
