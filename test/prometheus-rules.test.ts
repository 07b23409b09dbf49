/**
 * The alert rules in monitoring/: `promtool check rules` accepts them, `promtool test rules`
 * fires each alert from synthetic series (test/promtool/), and the PrometheusRule carries exactly
 * the groups of the plain rules file.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RepoRoot } from './support/run-mco.js';

const RulesFile = join(RepoRoot, 'monitoring/machine-config-rules.yaml');
const PrometheusRuleFile = join(RepoRoot, 'monitoring/prometheusrule.yaml');

function promtool(...args: string[]): { code: number | null; output: string } {
  const r = spawnSync('promtool', args, { cwd: join(RepoRoot, 'test/promtool'), encoding: 'utf8' });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

interface RuleGroups {
  readonly groups: readonly { readonly rules: readonly { readonly alert?: string }[] }[];
}

describe('monitoring/ rules', () => {
  it('pass promtool check rules', () => {
    const r = promtool('check', 'rules', RulesFile);
    expect(r.code, r.output).toBe(0);
  });

  it('fire each alert from synthetic series (promtool test rules)', () => {
    const r = promtool('test', 'rules', 'machine-config-rules.test.yaml');
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
    // every alert of the file has a test
    const tests = readFileSync(
      join(RepoRoot, 'test/promtool/machine-config-rules.test.yaml'),
      'utf8',
    );
    const plain = parse(readFileSync(RulesFile, 'utf8')) as RuleGroups;
    for (const rule of plain.groups.flatMap((g) => g.rules))
      if (rule.alert !== undefined) expect(tests).toContain(`alertname: ${rule.alert}\n`);
  });

  it('are the same groups in the PrometheusRule', () => {
    const plain = parse(readFileSync(RulesFile, 'utf8')) as RuleGroups;
    const cr = parse(readFileSync(PrometheusRuleFile, 'utf8')) as {
      kind: string;
      metadata: { namespace: string };
      spec: RuleGroups;
    };
    expect(cr.kind).toBe('PrometheusRule');
    expect(cr.metadata.namespace).toBe('openshift-machine-config-operator');
    expect(cr.spec.groups).toEqual(plain.groups);
  });
});
