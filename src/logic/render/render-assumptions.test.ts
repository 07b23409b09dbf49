import { describe, expect, it } from 'vitest';
import { ign, mc, pool } from '../../../test/support/machine-configs.js';
import { renderAssumptions } from './render-assumptions.js';

const file = (path: string) => ({ path, contents: { source: 'data:,x' } });
const templates = [
  {
    path: 'common/_base/files/sysctl.yaml',
    content: "mode: 0644\npath: '/etc/sysctl.d/99-k.conf'\n",
  },
  {
    path: 'worker/00-worker/_base/files/node-role.yaml',
    content: "path: '/etc/kubernetes/node-role.env'\n",
  },
  {
    path: 'worker/01-worker-container-runtime/_base/files/registries.yaml',
    content:
      "mode: 0644\npath: '/etc/containers/registries.conf'\ncontents:\n  inline: |\n    {{ .X }}\n",
  },
  {
    path: 'worker/01-worker-container-runtime/aws/files/other.yaml',
    content: "path: '/etc/aws'\n",
  },
  {
    path: 'master/00-master/_base/files/node-role.yaml',
    content: "path: '/etc/kubernetes/node-role.env'\n",
  },
];
const registries = mc('99-worker-registries', 'worker', {
  config: ign({ storage: { files: [file('/etc/containers/registries.conf')] } }),
});
const rendered = { ...registries, metadata: { name: 'rendered-worker-b' } };
const current = mc('rendered-worker-a', undefined, { config: ign() });

function offline(
  over: Partial<{
    configs: ReturnType<typeof mc>[];
    controllerConfig: boolean;
    machineConfiguration: boolean;
    poolName: string;
  }> = {},
) {
  return renderAssumptions({
    source: 'files',
    pool:
      over.poolName === 'infra'
        ? pool('infra', ['worker', 'infra'])
        : pool(over.poolName ?? 'worker'),
    configs: over.configs ?? [registries],
    templates,
    rendered,
    current,
    controllerConfig: over.controllerConfig ?? false,
    machineConfiguration: over.machineConfiguration ?? false,
    baseOsImage: 'quay.io/os@sha256:1',
    baseExtensionsImage: '',
  });
}

describe('renderAssumptions', () => {
  it('offline: the missing templates of the pool, the file one of them also writes, and the defaults used', () => {
    expect(offline()).toEqual([
      "the inputs lack the template MachineConfigs 00-worker, 01-worker-container-runtime, which the cluster's template controller generates from its ControllerConfig: the rendered config has none of their files and units, so its name is not the cluster's",
      "/etc/containers/registries.conf is also written by 01-worker-container-runtime on the cluster: the change is planned from none (--current has no such file), not from the template's copy the nodes have, so its actions and drain may differ from the cluster's",
      "only the inputs' MachineConfigs are rendered: the others the cluster holds for pool worker (the installer's 99-worker-ssh, the controllers' generated kubelet, container runtime and registries configs, other users') are left out",
      "no ControllerConfig (--controller-config): the base OS image is quay.io/os@sha256:1 (--base-os-image) and the extensions image empty; the cluster's ControllerConfig sets both, and the rendered name depends on them",
      "no MachineConfiguration (--machine-configuration): the node disruption policies are the cluster defaults; the cluster merges MachineConfiguration/cluster's spec.nodeDisruptionPolicy into them",
      'the node runs --current (rendered-worker-a); on the cluster each node plans from its own current config',
    ]);
  });

  it('offline: templates among the inputs, a ControllerConfig and a MachineConfiguration are not assumed', () => {
    const got = offline({
      configs: [registries, mc('00-worker', 'worker'), mc('01-worker-container-runtime', 'worker')],
      controllerConfig: true,
      machineConfiguration: true,
    });
    expect(got.join('\n')).not.toMatch(/template|ControllerConfig \(|MachineConfiguration \(/);
    expect(got).toHaveLength(2);
  });

  it('a custom pool selects worker’s templates, the master pool master’s', () => {
    expect(offline({ poolName: 'infra' })[0]).toContain('00-worker, 01-worker-container-runtime,');
    expect(offline({ poolName: 'master' })[0]).toContain('template MachineConfigs 00-master,');
  });

  it('with the cluster: only what it chose or could not read', () => {
    expect(
      renderAssumptions({
        source: 'cluster',
        pool: 'worker',
        from: { name: 'rendered-worker-a' },
        controllerConfig: true,
        machineConfiguration: true,
        imageFlags: [],
      }),
    ).toEqual([
      "the node runs pool worker's rendered config rendered-worker-a; a node on another config plans from its own (mco rollout preview plans each node)",
    ]);
    const chosen = renderAssumptions({
      source: 'cluster',
      pool: 'worker',
      from: { name: 'rendered-worker-a', file: 'a.yaml' },
      controllerConfig: false,
      machineConfiguration: false,
      imageFlags: ['--base-os-image'],
    });
    expect(chosen).toHaveLength(4);
    expect(chosen[0]).toBe(
      "the node runs --current (rendered-worker-a, from a.yaml), not a node's config from the cluster",
    );
  });
});
