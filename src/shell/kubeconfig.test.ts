import { describe, expect, it } from 'vitest';
import { formatKubeconfig, readKubeconfig } from './kubeconfig.js';

const caPem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('formatKubeconfig', () => {
  it('writes the HTTPS + CA data + token shape both clients accept', () => {
    expect(
      formatKubeconfig({
        server: 'https://127.0.0.1:6443',
        caPem,
        userName: 'admin',
        token: 't0k',
      }),
    ).toBe(
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '  - name: mco',
        '    cluster:',
        '      server: https://127.0.0.1:6443',
        `      certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
        'users:',
        '  - name: admin',
        '    user:',
        '      token: t0k',
        'contexts:',
        '  - name: admin@mco',
        '    context:',
        '      cluster: mco',
        '      user: admin',
        '      namespace: default',
        'current-context: admin@mco',
        'preferences: {}',
        '',
      ].join('\n'),
    );
  });

  it('reads back what it wrote', () => {
    const text = formatKubeconfig({
      server: 'https://h:1',
      caPem,
      userName: 'system:node:n1',
      token: 'abc123.0123456789abcdef',
    });
    expect(readKubeconfig(text)).toEqual({
      server: 'https://h:1',
      caPem,
      token: 'abc123.0123456789abcdef',
    });
  });

  it.each([
    ['kind: Config\n'],
    [''],
    ['current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n'],
  ])('gives undefined for an incomplete kubeconfig %j', (text) => {
    expect(readKubeconfig(text)).toBeUndefined();
  });
});
