/** KubeletConfig tlsSecurityProfile → kubelet.conf (docs/reference/cluster-config.md §1). */
import { describe, expect, it } from 'vitest';
import { parseDataUrl } from '../../ignition/data-url.js';
import { generateKubeletIgnition } from './generate-kubelet-config.js';
import { kubeletTlsFields } from './tls-profile.js';

describe('kubeletTlsFields (GetSecurityProfileCiphers)', () => {
  it('Modern: TLS 1.3 only', () => {
    expect(kubeletTlsFields({ type: 'Modern', modern: {} })).toEqual({
      tlsMinVersion: 'VersionTLS13',
      tlsCipherSuites: [
        'TLS_AES_128_GCM_SHA256',
        'TLS_AES_256_GCM_SHA384',
        'TLS_CHACHA20_POLY1305_SHA256',
      ],
    });
  });
  it('none, Intermediate, and Custom without custom all mean Intermediate', () => {
    const intermediate = kubeletTlsFields({ type: 'Intermediate', intermediate: {} });
    expect(intermediate.tlsMinVersion).toBe('VersionTLS12');
    expect(intermediate.tlsCipherSuites).toContain('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
    expect(intermediate.tlsCipherSuites).toHaveLength(9);
    expect(kubeletTlsFields(undefined)).toEqual(intermediate);
    expect(kubeletTlsFields({ type: 'Custom' })).toEqual(intermediate);
  });
  it('Custom: OpenSSL names to IANA, unmappable ones dropped, the version as spelled', () => {
    expect(
      kubeletTlsFields({
        type: 'Custom',
        custom: {
          ciphers: ['ECDHE-RSA-AES256-GCM-SHA384', 'DHE-RSA-AES128-GCM-SHA256', 'bogus'],
          minTLSVersion: 'VersionTLS11',
        },
      }),
    ).toEqual({
      tlsMinVersion: 'VersionTLS11',
      tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
    });
  });
  it('Old maps DES-CBC3-SHA and keeps TLS 1.0', () => {
    const old = kubeletTlsFields({ type: 'Old', old: {} });
    expect(old.tlsMinVersion).toBe('VersionTLS10');
    expect(old.tlsCipherSuites.at(-1)).toBe('TLS_RSA_WITH_3DES_EDE_CBC_SHA');
  });
});

describe('a KubeletConfig profile in kubelet.conf', () => {
  it('replaces the template’s fields', () => {
    const ign = generateKubeletIgnition(
      { metadata: { name: 'k' }, spec: { tlsSecurityProfile: { type: 'Modern', modern: {} } } },
      { kind: 'KubeletConfiguration', tlsMinVersion: 'VersionTLS12', tlsCipherSuites: ['x'] },
    ) as { storage: { files: { path: string; contents: { source: string } }[] } };
    const conf = ign.storage.files.find((f) => f.path === '/etc/kubernetes/kubelet.conf');
    const url = parseDataUrl(conf?.contents.source ?? '');
    const text = url.ok ? new TextDecoder().decode(url.value.data) : '';
    expect(text).toContain('tlsMinVersion: VersionTLS13');
    expect(text).toContain('- TLS_CHACHA20_POLY1305_SHA256');
    expect(text).not.toContain('- x\n');
  });
});
