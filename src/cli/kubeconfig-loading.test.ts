import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../test/support/tmp-dir.js';
import { credentialsFromSelection } from '../adapters/https-resource-client.js';
import { CliError } from '../shell/cli-io.js';
import { ClusterInABoxKubeconfig, kubeconfigFiles, loadKubeconfig } from './kubeconfig-loading.js';

const dir = makeTmpDir('mco-kubeconfig-');
afterAll(() => {
  dir.remove();
});

const fileA = dir.write(
  'a/config',
  `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: "https://127.0.0.1:1", certificate-authority: ca.crt}
- name: shared
  cluster: {server: "https://from-a:1"}
users:
- name: u1
  user: {tokenFile: token}
contexts:
- name: ctx-a
  context: {cluster: c1, user: u1}
- name: shared-ctx
  context: {cluster: shared, user: u1, namespace: from-a}
current-context: ctx-a
`,
);
dir.write('a/ca.crt', 'CA-A\n');
dir.write('a/token', 'tok-a\n');
const fileB = dir.write(
  'b/config',
  `apiVersion: v1
kind: Config
clusters:
- name: shared
  cluster: {server: "https://from-b:1"}
- name: c2
  cluster: {server: "https://from-b:2"}
users:
- name: u2
  user: {token: tok-b}
contexts:
- name: ctx-b
  context: {cluster: c2, user: u2}
- name: shared-ctx
  context: {cluster: shared, user: u2, namespace: from-b}
current-context: ctx-b
`,
);
const missing = join(dir.path, 'missing');
const env = (kubeconfigEnv: string | undefined, cwd = dir.path) => ({
  kubeconfigEnv,
  cwd,
  home: join(dir.path, 'home'),
});

describe('kubeconfig loading as kubectl does it', () => {
  it('merges $KUBECONFIG in order and skips files that do not exist', () => {
    const loaded = loadKubeconfig({}, env(`${missing}:${fileB}:${fileA}`));
    expect(loaded.files).toEqual([fileB, fileA]);
    expect(loaded.selection.contextName).toBe('ctx-b');
    expect(loaded.selection.cluster.server).toBe('https://from-b:2');
    const shared = loadKubeconfig({ context: 'shared-ctx' }, env(`${fileB}:${fileA}`));
    expect(shared.selection.context.namespace).toBe('from-b');
  });

  it('--kubeconfig overrides $KUBECONFIG; --context picks a context of the merged files', () => {
    const only = loadKubeconfig({ kubeconfig: fileA }, env(fileB));
    expect(only.files).toEqual([fileA]);
    expect(() => loadKubeconfig({ kubeconfig: fileA, context: 'ctx-b' }, env(fileB))).toThrow(
      'context was not found for specified context: ctx-b',
    );
    expect(
      loadKubeconfig({ context: 'ctx-a' }, env(`${fileB}:${fileA}`)).selection.clusterName,
    ).toBe('c1');
  });

  it("prints kubectl's errors: unknown context, missing --kubeconfig file", () => {
    const unknown = (() => {
      try {
        loadKubeconfig({ context: 'nope' }, env(fileA));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(unknown).toBeInstanceOf(CliError);
    expect((unknown as CliError).text()).toBe(
      'Error in configuration: context was not found for specified context: nope\n',
    );
    expect(() => loadKubeconfig({ kubeconfig: 'nope.yaml' }, env(undefined))).toThrow(
      'stat nope.yaml: no such file or directory',
    );
    expect(() => loadKubeconfig({}, env(`${missing}:${missing}2`))).toThrow(
      /none of the files in \$KUBECONFIG exists/,
    );
  });

  it('resolves relative paths against the file that names them, for the HTTPS client too', () => {
    // From another folder: the CA and token file are next to a/config, not the working folder.
    const loaded = loadKubeconfig({}, env(`${missing}:a/config`, dir.path));
    expect(loaded.selection.cluster['certificate-authority']).toBe(join(dir.path, 'a', 'ca.crt'));
    expect(credentialsFromSelection(loaded.selection)).toEqual({
      server: 'https://127.0.0.1:1',
      ca: 'CA-A\n',
      // The lean client reads the token file itself (and again once a minute).
      tokenFile: join(dir.path, 'a', 'token'),
    });
  });

  it('falls back to .mco/admin.kubeconfig in the folder, then ~/.kube/config', () => {
    const box = makeTmpDir('mco-kubeconfig-box-');
    try {
      expect(() => kubeconfigFiles({}, env(undefined, box.path))).toThrow(/no kubeconfig/);
      const home = box.write('home/.kube/config', '');
      expect(
        kubeconfigFiles({}, { ...env(undefined, box.path), home: join(box.path, 'home') }),
      ).toEqual([home]);
      const admin = box.write(ClusterInABoxKubeconfig, '');
      expect(
        kubeconfigFiles({}, { ...env(undefined, box.path), home: join(box.path, 'home') }),
      ).toEqual([admin]);
      // $KUBECONFIG set: neither fallback is consulted, as kubectl ignores ~/.kube/config then.
      expect(kubeconfigFiles({}, env(fileA, box.path))).toEqual([fileA]);
    } finally {
      box.remove();
    }
  });
});

const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

describe.skipIf(!existsSync(kubectl))('the same merge as kubectl config view', () => {
  it.each([[`${fileA}:${fileB}`], [`${missing}:${fileB}:${fileA}`]])('KUBECONFIG=%s', (list) => {
    const view = JSON.parse(
      execFileSync(kubectl, ['config', 'view', '-o', 'json'], {
        env: { ...process.env, KUBECONFIG: list },
        encoding: 'utf8',
      }),
    ) as {
      'current-context': string;
      contexts: { name: string; context: { cluster: string; namespace?: string } }[];
      clusters: { name: string; cluster: { server: string } }[];
    };
    const ours = loadKubeconfig({}, env(list)).config;
    expect(ours.currentContext).toBe(view['current-context']);
    const byName = <T>(xs: { name: string; value: T }[]) =>
      Object.fromEntries(xs.map((x) => [x.name, x.value]));
    expect(
      Object.fromEntries(view.contexts.map((c) => [c.name, c.context.namespace ?? ''])),
    ).toEqual(
      Object.fromEntries(
        Object.entries(byName([...ours.contexts])).map(([k, v]) => [k, v.namespace ?? '']),
      ),
    );
    expect(Object.fromEntries(view.clusters.map((c) => [c.name, c.cluster.server]))).toEqual(
      Object.fromEntries(Object.entries(byName([...ours.clusters])).map(([k, v]) => [k, v.server])),
    );
  });
});
