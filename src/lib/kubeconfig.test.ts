import { describe, expect, it } from 'vitest';
import {
  KubeconfigError,
  mergeKubeconfigs,
  parseKubeconfig,
  selectKubeconfigContext,
} from './kubeconfig.js';

const a = parseKubeconfig(
  `
clusters:
- name: c1
  cluster: {server: "https://a:1", certificate-authority: ca.crt}
- name: shared
  cluster: {server: "https://from-a:1"}
users:
- name: u1
  user: {token: a-token}
contexts:
- name: ctx-a
  context: {cluster: c1, user: u1}
- name: shared-ctx
  context: {cluster: shared, user: u1, namespace: from-a}
current-context: ctx-a
`,
  '/home/me/a/config',
);

const b = parseKubeconfig(
  `
clusters:
- name: shared
  cluster: {server: "https://from-b:1", certificate-authority: ../b-ca.crt}
- name: c2
  cluster: {server: "https://b:2", certificate-authority: /etc/ca.crt}
users:
- name: u2
  user: {client-certificate: u2.crt, client-key: keys/u2.key, tokenFile: tok, exec: {command: ./bin/login}}
- name: u3
  user: {exec: {command: oc}}
contexts:
- name: ctx-b
  context: {cluster: c2, user: u2}
- name: shared-ctx
  context: {cluster: shared, user: u2, namespace: from-b}
current-context: ctx-b
`,
  '/srv/b/config',
);

describe('parseKubeconfig', () => {
  it('resolves relative paths against the folder of the file that names them', () => {
    expect(b.clusters.find((c) => c.name === 'shared')?.value['certificate-authority']).toBe(
      '/srv/b-ca.crt',
    );
    expect(b.clusters.find((c) => c.name === 'c2')?.value['certificate-authority']).toBe(
      '/etc/ca.crt',
    );
    const u2 = b.users.find((u) => u.name === 'u2')?.value;
    expect(u2?.['client-certificate']).toBe('/srv/b/u2.crt');
    expect(u2?.['client-key']).toBe('/srv/b/keys/u2.key');
    expect(u2?.tokenFile).toBe('/srv/b/tok');
    expect(u2?.exec?.command).toBe('/srv/b/bin/login');
    // A bare command name is looked up on PATH, as clientcmd leaves it.
    expect(b.users.find((u) => u.name === 'u3')?.value.exec?.command).toBe('oc');
  });

  it('reads an empty file as an empty kubeconfig', () => {
    expect(parseKubeconfig('', '/x')).toEqual({
      clusters: [],
      users: [],
      contexts: [],
      currentContext: '',
    });
  });

  it.each([
    ['clusters: [\n', /error loading config file "\/bad"/],
    ['clusters: {a: 1}\n', /clusters is not a list/],
    ['users: [{user: {token: x}}]\n', /users entry without a name/],
    [
      'clusters: [{name: a, cluster: {server: "https://x"}}, {name: a, cluster: {server: "https://y"}}]\n',
      /duplicate name "a" in clusters/,
    ],
    ['- a\n- b\n', /not a kubeconfig/],
  ])('refuses %j', (text, message) => {
    expect(() => parseKubeconfig(text, '/bad')).toThrow(message);
  });
});

describe('mergeKubeconfigs', () => {
  it('lets the first file to set a name win the whole entry, and its current-context', () => {
    const ab = mergeKubeconfigs([a, b]);
    expect(ab.currentContext).toBe('ctx-a');
    expect(ab.contexts.map((c) => c.name)).toEqual(['ctx-a', 'shared-ctx', 'ctx-b']);
    expect(ab.contexts.find((c) => c.name === 'shared-ctx')?.value.namespace).toBe('from-a');
    expect(ab.clusters.find((c) => c.name === 'shared')?.value).toEqual({
      server: 'https://from-a:1',
    });

    const ba = mergeKubeconfigs([b, a]);
    expect(ba.currentContext).toBe('ctx-b');
    expect(ba.contexts.find((c) => c.name === 'shared-ctx')?.value.namespace).toBe('from-b');
  });

  it('takes current-context from the first file that sets one, even after files that do not', () => {
    const noCurrent = parseKubeconfig('clusters: []\n', '/n');
    expect(mergeKubeconfigs([noCurrent, b, a]).currentContext).toBe('ctx-b');
  });
});

describe('selectKubeconfigContext', () => {
  const merged = mergeKubeconfigs([a, b]);

  it('selects the current context, or the one --context names', () => {
    expect(selectKubeconfigContext(merged).cluster.server).toBe('https://a:1');
    const s = selectKubeconfigContext(merged, 'ctx-b');
    expect(s).toMatchObject({ contextName: 'ctx-b', clusterName: 'c2', userName: 'u2' });
    expect(s.user.tokenFile).toBe('/srv/b/tok');
  });

  it("gives kubectl's error for an unknown context", () => {
    expect(() => selectKubeconfigContext(merged, 'nope')).toThrow(
      new KubeconfigError('context was not found for specified context: nope'),
    );
  });

  it('says which cluster is missing instead of falling back to localhost', () => {
    const c = parseKubeconfig(
      'contexts: [{name: x, context: {cluster: ghost}}]\ncurrent-context: x\n',
      '/c',
    );
    expect(() => selectKubeconfigContext(c)).toThrow(
      'context "x" names cluster "ghost", which no kubeconfig file defines',
    );
    expect(() => selectKubeconfigContext(parseKubeconfig('', '/e'))).toThrow(/no current-context/);
  });
});
