import { describe, expect, it } from 'vitest';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfiguration } from '../../api/operator/v1/machine-configuration.js';
import { controllerConfig, ign, mc, pool } from '../../../test/support/machine-configs.js';
import { McoVersion } from '../../version.js';
import { renderPool } from '../render/render-pool.js';
import {
  describePoolChangeError,
  planFromConfig,
  renderPoolChange,
  type ClusterInputs,
} from './pool-change.js';

const Conf = '/etc/containers/registries.conf';
const registries = (name: string, text: string) =>
  mc(name, 'worker', {
    config: ign({
      storage: {
        files: [
          { path: Conf, mode: 0o644, contents: { source: `data:,${encodeURIComponent(text)}` } },
        ],
      },
    }),
  });
const Search = 'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\n';
const Mirror = [
  '[[registry]]',
  'location = "quay.io/openshift"',
  'mirror-by-digest-only = true',
  '[[registry.mirror]]',
  'location = "mirror.example.com/openshift"',
  'pull-from-mirror = "digest-only"',
  '',
].join('\n');
const cc = controllerConfig('quay.io/openshift/os@sha256:1111');

/** A cluster whose worker pool is rendered from a template writing the search registries. */
function cluster(machineConfiguration?: MachineConfiguration): ClusterInputs {
  const templates = [registries('01-worker-container-runtime', Search)];
  const worker = pool('worker');
  const rendered = renderPool({
    pool: worker,
    configs: templates,
    controllerConfig: cc,
    version: McoVersion,
    enforceVersionGates: false,
  });
  if (!rendered.ok) throw new Error('the fixture does not render');
  const target: MachineConfig = rendered.value.config;
  const pools: MachineConfigPool[] = [
    { ...worker, spec: { ...worker.spec, configuration: { name: target.metadata.name ?? '' } } },
  ];
  return { pools, configs: [...templates, target], controllerConfig: cc, machineConfiguration };
}

function plan(inputs: ClusterInputs, change: readonly MachineConfig[]) {
  const r = renderPoolChange({
    cluster: inputs,
    change: { configs: change, pools: [] },
    pool: 'worker',
    version: McoVersion,
  });
  if (!r.ok) throw new Error(describePoolChangeError(r.error));
  const p = planFromConfig(r.value);
  if (!p.ok) throw new Error(p.error);
  return { change: r.value, plan: p.value };
}

describe('renderPoolChange and planFromConfig', () => {
  it('drops the template’s search registries: Special, and a drain, as the node would decide', () => {
    const { plan: p } = plan(cluster(), [registries('99-worker-registries', Mirror)]);
    expect(p).toMatchObject({
      actions: ['Special'],
      drain: true,
      reboot: false,
      changedPaths: [Conf],
    });
  });

  it('keeps them and adds a digest-only mirror: no drain', () => {
    const { plan: p } = plan(cluster(), [registries('99-worker-registries', `${Search}${Mirror}`)]);
    expect(p).toMatchObject({ actions: ['Special'], drain: false });
  });

  it('plans with MachineConfiguration/cluster’s spec merged into the defaults', () => {
    const withNone: MachineConfiguration = {
      apiVersion: 'operator.openshift.io/v1',
      kind: 'MachineConfiguration',
      metadata: { name: 'cluster' },
      spec: {
        managementState: 'Managed',
        nodeDisruptionPolicy: { files: [{ path: Conf, actions: [{ type: 'None' }] }] },
      },
    };
    const { plan: p } = plan(cluster(withNone), [registries('99-worker-registries', Mirror)]);
    expect(p).toMatchObject({ actions: ['None'], drain: false });
  });

  it('re-applying a config the cluster has renders the pool’s own target: the cluster’s name', () => {
    const inputs = cluster();
    const { change, plan: p } = plan(inputs, [registries('01-worker-container-runtime', Search)]);
    expect(change.rendered.metadata.name).toBe(inputs.pools[0]?.spec.configuration?.name);
    expect(p.changedPaths).toEqual([]);
  });

  it('refuses what it cannot plan, with the reason', () => {
    const inputs = cluster();
    const unnamed = renderPoolChange({
      cluster: inputs,
      change: { configs: [{ ...mc('x', 'worker'), metadata: {} }], pools: [] },
      pool: 'worker',
      version: McoVersion,
    });
    expect(!unnamed.ok && describePoolChangeError(unnamed.error)).toBe(
      'a MachineConfig in the files has no metadata.name',
    );
    const missing = renderPoolChange({
      cluster: inputs,
      change: { configs: [], pools: [] },
      pool: 'infra',
      version: McoVersion,
    });
    expect(!missing.ok && describePoolChangeError(missing.error)).toBe(
      'machineconfigpool infra not found (in the cluster or the files)',
    );
    const { change } = plan(inputs, []);
    expect(planFromConfig(change, 'rendered-worker-gone')).toEqual({
      ok: false,
      error: 'current config "rendered-worker-gone" not found',
    });
  });
});
