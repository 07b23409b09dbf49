import { describe, expect, it } from 'vitest';
import type { MachineConfiguration } from '../../api/operator/v1/machine-configuration.js';
import { defaultClusterPolicies } from '../nodeplan/node-disruption-policies.js';
import {
  bootImageFailure,
  initialMachineConfiguration,
  nextMachineConfigurationStatus,
} from './machine-configuration-status.js';

const mcop = (over: Partial<MachineConfiguration> = {}): MachineConfiguration => ({
  ...initialMachineConfiguration('cluster'),
  metadata: { name: 'cluster', generation: 3 },
  ...over,
});

describe('nextMachineConfigurationStatus (docs/reference/node-disruption.md §2–3)', () => {
  it('a fresh object: the defaults as the cluster policies, observedGeneration = generation', () => {
    const status = nextMachineConfigurationStatus(mcop());
    expect(status?.observedGeneration).toBe(3);
    expect(status?.nodeDisruptionPolicyStatus?.clusterPolicies).toEqual(defaultClusterPolicies);
  });

  it('user policies: a default path replaced in place, others appended, sshkey replaced', () => {
    const status = nextMachineConfigurationStatus(
      mcop({
        spec: {
          managementState: 'Managed',
          nodeDisruptionPolicy: {
            files: [
              {
                path: '/etc/foo/foo.conf',
                actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
              },
              { path: '/etc/containers/policy.json', actions: [{ type: 'None' }] },
            ],
            units: [
              // a stray reload on a DaemonReload is not carried into the status
              {
                name: 'foo.service',
                actions: [{ type: 'DaemonReload', reload: { serviceName: 'x.service' } }],
              },
            ],
            sshkey: { actions: [{ type: 'Drain' }] },
          },
        },
      }),
    );
    const p = status?.nodeDisruptionPolicyStatus?.clusterPolicies;
    const files = p?.files ?? [];
    expect(files.map((f) => f.path).indexOf('/etc/containers/policy.json')).toBe(2);
    expect(files[2]?.actions).toEqual([{ type: 'None' }]);
    expect(files.at(-1)).toEqual({
      path: '/etc/foo/foo.conf',
      actions: [{ type: 'Restart', restart: { serviceName: 'foo.service' } }],
    });
    expect(files).toHaveLength((defaultClusterPolicies.files ?? []).length + 1);
    expect(p?.units?.at(-1)).toEqual({ name: 'foo.service', actions: [{ type: 'DaemonReload' }] });
    expect(p?.sshkey).toEqual({ actions: [{ type: 'Drain' }] });
  });

  it('nothing to write once the status is current; existing conditions are kept', () => {
    const condition = {
      type: 'BootImageUpdateDegraded',
      status: 'False' as const,
      reason: 'NA',
      message: '',
      lastTransitionTime: '2024-01-01T00:00:00Z',
    };
    const first = nextMachineConfigurationStatus(mcop({ status: { conditions: [condition] } }));
    expect(first?.conditions).toEqual([condition]);
    expect(nextMachineConfigurationStatus(mcop({ status: first! }))).toBeUndefined();
    // a new generation: written again
    expect(
      nextMachineConfigurationStatus(
        mcop({ metadata: { name: 'cluster', generation: 4 }, status: first! }),
      )?.observedGeneration,
    ).toBe(4);
  });

  it('a True BootImageUpdateDegraded fails the step with its message', () => {
    const degraded = mcop({
      status: {
        conditions: [
          {
            type: 'BootImageUpdateDegraded',
            status: 'True',
            reason: 'Failed',
            message: 'no stream',
            lastTransitionTime: '2024-01-01T00:00:00Z',
          },
        ],
      },
    });
    expect(bootImageFailure(degraded)).toBe('bootimage update failed: no stream');
    expect(bootImageFailure(mcop())).toBeUndefined();
  });
});
