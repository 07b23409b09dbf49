import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../test/support/tmp-dir.js';
import {
  describeJsonPathTemplateError,
  executeJsonPathTemplate,
  parseJsonPathTemplate,
} from './jsonpath-template.js';

function render(template: string, value: unknown): string {
  const parsed = parseJsonPathTemplate(template);
  if (!parsed.ok) throw new Error(describeJsonPathTemplateError(parsed.error));
  return executeJsonPathTemplate(parsed.value, value);
}

const list = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { metadata: { name: 'worker-0', labels: { 'kubernetes.io/hostname': 'w0' } }, spec: {} },
    { metadata: { name: 'worker-1', labels: {} }, spec: { unschedulable: true } },
  ],
};

describe('kubectl jsonpath templates', () => {
  it.each([
    ['{.items[*].metadata.name}', 'worker-0 worker-1'],
    ['{range .items[*]}{.metadata.name}{"\\n"}{end}', 'worker-0\nworker-1\n'],
    ['{range .items[*]}{@.metadata.name}={.spec.unschedulable};{end}', 'worker-0=;worker-1=true;'],
    ['{.items[0].metadata.labels.kubernetes\\.io/hostname}', 'w0'],
    ['{.items[0].metadata}', '{"labels":{"kubernetes.io/hostname":"w0"},"name":"worker-0"}'],
    ['{.items[?(@.spec.unschedulable==true)].metadata.name}', 'worker-1'],
    ['name: {.items[1].metadata.name}', 'name: worker-1'],
    ['{range .items[*]}{$.kind}{end}', 'ListList'],
    ['{.missing}', ''],
    ['plain text', 'plain text'],
  ])('%s', (template, expected) => {
    expect(render(template, list)).toBe(expected);
  });

  it.each([
    ['{.items[', /^error parsing jsonpath \{\.items\[, /],
    ['{range .items[*]}{.a}', /unclosed range/],
    ['{end}', /not in range/],
    ['{}', /empty action/],
  ])('refuses %s', (template, message) => {
    const parsed = parseJsonPathTemplate(template);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(describeJsonPathTemplateError(parsed.error)).toMatch(message);
  });
});

const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

// `kubectl config view -o jsonpath=…` runs kubectl's own jsonpath printer on local data: the
// same template must print the same bytes from ours.
describe.skipIf(!existsSync(kubectl))('the same output as kubectl', () => {
  const dir = makeTmpDir('mco-jsonpath-');
  afterAll(() => {
    dir.remove();
  });
  const file = dir.write(
    'config',
    `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: "https://a:1", insecure-skip-tls-verify: true}
- name: c2
  cluster: {server: "https://b:2"}
users:
- name: u1
  user: {token: t}
contexts:
- name: ctx-a
  context: {cluster: c1, user: u1, namespace: "a<b&c"}
- name: ctx-b
  context: {cluster: c2, user: u1}
current-context: ctx-a
`,
  );
  const view = (output: string): string =>
    execFileSync(kubectl, ['--kubeconfig', file, 'config', 'view', '--raw', '-o', output], {
      encoding: 'utf8',
    });
  const doc: unknown = JSON.parse(view('json'));

  it.each([
    '{.contexts[*].name}',
    '{range .contexts[*]}{.name}{"\\t"}{.context.cluster}{"\\n"}{end}',
    'x{.clusters[0].cluster}y',
    '{.contexts[?(@.name=="ctx-b")].context.cluster}',
    '{.nope}|{.contexts[*].context.namespace}',
    '{range .contexts[*]}[{@.name}]{end}',
    '{.clusters[*].cluster.insecure-skip-tls-verify}',
    '{.contexts[0]}',
    '{range .clusters[*]}{range .cluster}{@}{end};{end}',
    '{$.kind} {.preferences}',
  ])('%s', (template) => {
    expect(render(template, doc)).toBe(view(`jsonpath=${template}`));
  });
});
