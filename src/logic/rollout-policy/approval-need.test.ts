import { describe, expect, it } from 'vitest';
import { planSummary } from '../../../test/support/plan-summaries.js';
import { approvalNeed, rebootLimit, type PendingNodePlan } from './approval-need.js';
import { parseRolloutPolicy } from './parse-rollout-policy.js';

const plan = planSummary;

const reboots = plan({
  actions: ['Reboot'],
  drain: true,
  reboot: true,
  changedPaths: ['/etc/ssh/sshd_config.d/10-mco.conf'],
});
const reloads = plan({
  actions: ['Reload crio.service'],
  changedPaths: ['/etc/containers/registries.conf'],
});

const pending = (...plans: PendingNodePlan['plan'][]): PendingNodePlan[] =>
  plans.map((p, i) => ({ node: `worker-${String(i)}`, plan: p }));

const need = (
  approval: Parameters<typeof approvalNeed>[0]['approval'],
  p: PendingNodePlan[],
  poolSize = p.length,
) => approvalNeed({ approval, pool: 'worker', target: 'rendered-b', poolSize, pending: p });

describe('approval need', () => {
  it('asks when more nodes would reboot than the count or share allows, with the preview', () => {
    expect(need({ rebootsAbove: 1 }, pending(reboots, reboots, reloads))).toBe(
      'rendered-b waits for an approval: it reboots 2 of 3 nodes (more than 1, rebootsAbove 1). Preview: worker-0, worker-1 will drain and reboot; worker-2 will reload crio.service. `mco rollout approve mcp/worker` lets it start',
    );
    expect(need({ rebootsAbove: 2 }, pending(reboots, reboots, reloads))).toBeUndefined();
    // Nodes by name, whatever order the controller listed them in.
    expect(need({ rebootsAbove: 0 }, [...pending(reboots, reboots)].reverse())).toMatch(
      /Preview: worker-0, worker-1 will drain and reboot\./,
    );
    // 50 % of 4 is 2: two reboots are allowed, three are not.
    expect(need({ rebootsAbove: '50%' }, pending(reboots, reboots), 4)).toBeUndefined();
    expect(need({ rebootsAbove: '50%' }, pending(reboots, reboots, reboots), 4)).toMatch(
      /^rendered-b waits for an approval: it reboots 3 of 4 nodes \(more than 2, rebootsAbove "50%"\)/,
    );
    expect(need({ rebootsAbove: '100%' }, pending(reboots, reboots))).toBeUndefined();
  });

  it('asks when a changed file or unit matches a glob, whatever reboots', () => {
    const unit = plan({ changedUnits: ['kubelet.service'], actions: ['Reboot'], reboot: true });
    expect(need({ paths: ['/etc/containers/**'] }, pending(reloads))).toBe(
      'rendered-b waits for an approval: it changes /etc/containers/registries.conf (approval.paths). Preview: worker-0 will reload crio.service. `mco rollout approve mcp/worker` lets it start',
    );
    expect(need({ paths: ['/etc/systemd/system/kubelet*'] }, pending(unit))).toMatch(
      /it changes \/etc\/systemd\/system\/kubelet\.service \(approval\.paths\)/,
    );
    expect(need({ paths: ['/etc/ssh/*'] }, pending(reloads))).toBeUndefined();
    // Both reasons, once each.
    expect(need({ rebootsAbove: 0, paths: ['/etc/ssh/**'] }, pending(reboots))).toMatch(
      /: it reboots 1 of 1 nodes \(more than 0, rebootsAbove 0\), and it changes \/etc\/ssh\/sshd_config\.d\/10-mco\.conf \(approval\.paths\)\. /,
    );
  });

  it('counts a node it cannot plan as a reboot, and says why', () => {
    expect(need({ rebootsAbove: 0 }, pending({ error: 'config "x" not found' }))).toMatch(
      /it reboots 1 of 1 nodes .*Preview: worker-0 cannot be planned \(config "x" not found\)\./,
    );
  });

  it('lists at most eight nodes of an effect', () => {
    const text = need({ rebootsAbove: 0 }, pending(...Array.from({ length: 11 }, () => reboots)));
    expect(text).toMatch(/Preview: worker-0, .*, worker-7 and 3 more will drain and reboot\./);
  });

  it('asks nothing without a policy or with nothing pending', () => {
    expect(need(undefined, pending(reboots))).toBeUndefined();
    expect(need({ rebootsAbove: 0 }, [])).toBeUndefined();
    expect(rebootLimit('33%', 10)).toBe(3);
  });

  it('the policy refuses an empty approval, a relative path and a bad share', () => {
    const parse = (approval: unknown) => parseRolloutPolicy(JSON.stringify({ approval }));
    expect(parse({})).toEqual({ ok: false, error: '/approval: set rebootsAbove, paths or both' });
    expect(parse({ paths: ['etc/ssh'] })).toMatchObject({ ok: false });
    expect(parse({ rebootsAbove: '150%' })).toMatchObject({ ok: false });
    expect(parse({ rebootsAbove: -1 })).toMatchObject({ ok: false });
    expect(parse({ rebootsAbove: '25%', paths: ['/etc/**'] })).toMatchObject({ ok: true });
  });
});
