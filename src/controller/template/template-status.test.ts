import { describe, expect, it } from 'vitest';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import { completedStatus, failingStatus, runningStatus } from './template-status.js';

function cc(generation: number, status?: ControllerConfig['status']): ControllerConfig {
  return {
    metadata: { name: 'machine-config-controller', generation },
    spec: {} as ControllerConfig['spec'],
    ...(status === undefined ? {} : { status }),
  };
}

const T0 = '2026-11-29T09:00:00Z';
const T1 = '2026-11-29T09:05:00Z';

describe('template controller status (upstream template/status.go)', () => {
  it('running → completed, with upstream messages and observedGeneration', () => {
    const running = runningStatus(cc(1), '0.1.0', T0);
    expect(running).toEqual({
      observedGeneration: 1,
      conditions: [
        {
          type: 'TemplateControllerRunning',
          status: 'True',
          lastTransitionTime: T0,
          reason: '',
          message: 'syncing towards (1) generation using controller version 0.1.0',
        },
      ],
    });
    const done = completedStatus(cc(1, running), '0.1.0', T1);
    expect(done.conditions).toEqual([
      {
        type: 'TemplateControllerCompleted',
        status: 'True',
        lastTransitionTime: T1,
        reason: '',
        message: 'sync completed towards (1) generation using controller version 0.1.0',
      },
      {
        type: 'TemplateControllerRunning',
        status: 'False',
        lastTransitionTime: T1,
        reason: '',
        message: '',
      },
      {
        type: 'TemplateControllerFailing',
        status: 'False',
        lastTransitionTime: T1,
        reason: '',
        message: '',
      },
    ]);
  });

  it('a new generation resets Completed with "due to change in Generation"', () => {
    const done = completedStatus(cc(1), '0.1.0', T0);
    const next = runningStatus(cc(2, done), '0.1.0', T1);
    expect(next.conditions?.find((c) => c.type === 'TemplateControllerCompleted')).toEqual({
      type: 'TemplateControllerCompleted',
      status: 'False',
      lastTransitionTime: T1,
      reason: '',
      message:
        'syncing towards (2) generation using controller version 0.1.0 due to change in Generation',
    });
    expect(next.observedGeneration).toBe(2);
  });

  it('failing carries the error', () => {
    const failed = failingStatus(cc(3), '0.1.0', 'platform _base unsupported', T0);
    expect(failed.conditions?.map((c) => [c.type, c.status, c.message])).toEqual([
      [
        'TemplateControllerFailing',
        'True',
        'failed to syncing towards (3) generation using controller version 0.1.0: platform _base unsupported',
      ],
      ['TemplateControllerCompleted', 'False', ''],
      ['TemplateControllerRunning', 'False', ''],
    ]);
  });

  it('an unchanged condition keeps its time', () => {
    const done = completedStatus(cc(1), '0.1.0', T0);
    expect(completedStatus(cc(1, done), '0.1.0', T1)).toEqual(done);
  });
});
