/** A node's update plan as `mco rollout preview` summarises it, changing nothing unless told. */
import type { PlanSummary } from '../../src/logic/nodeplan/plan-summary.js';

export const planSummary = (over: Partial<PlanSummary> = {}): PlanSummary => ({
  from: 'rendered-worker-a',
  to: 'rendered-worker-b',
  path: 'policies',
  actions: ['None'],
  drain: false,
  reboot: false,
  changedPaths: [],
  changedUnits: [],
  sshKeys: false,
  kernelArguments: null,
  osImage: null,
  kernelType: null,
  extensions: null,
  forced: false,
  ...over,
});
