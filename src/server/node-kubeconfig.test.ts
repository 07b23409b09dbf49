import { describe, expect, it } from 'vitest';
import { nodeKubeconfig } from './node-kubeconfig.js';

describe('nodeKubeconfig', () => {
  it('is clientcmd v1 Config as ghodss/yaml writes it', () => {
    expect(
      nodeKubeconfig({
        server: 'https://api-int:6443',
        caData: new TextEncoder().encode('CA'),
        token: 'tok\n',
      }),
    ).toBe(
      'clusters:\n- cluster:\n    certificate-authority-data: Q0E=\n    server: https://api-int:6443\n  name: local\n' +
        'contexts:\n- context:\n    cluster: local\n    user: kubelet\n  name: kubelet\ncurrent-context: kubelet\n' +
        'preferences: {}\nusers:\n- name: kubelet\n  user:\n    token: |\n      tok\n',
    );
  });
});
