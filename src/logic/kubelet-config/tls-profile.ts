/**
 * A KubeletConfig's `tlsSecurityProfile` as kubelet.conf fields (docs/reference/cluster-config.md
 * §1; upstream GetSecurityProfileCiphers): no profile, an unknown type or `Custom` without
 * `custom` mean Intermediate; a named profile is openshift/api's `TLSProfiles` entry (Mozilla
 * guidelines 5.7); the minimum version keeps the profile's spelling (`VersionTLS12`); ciphers go
 * from OpenSSL to IANA names as library-go maps them, and names without an IANA form are dropped.
 */
import type { TLSSecurityProfile } from '../../api/config/v1/tls-security-profile.js';

const Tls13 = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];
const Intermediate = [
  ...Tls13,
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
];

const TlsProfiles: Readonly<
  Record<'Old' | 'Intermediate' | 'Modern', { ciphers: readonly string[]; minTLSVersion: string }>
> = {
  Old: {
    ciphers: [
      ...Intermediate,
      'ECDHE-ECDSA-AES128-SHA256',
      'ECDHE-RSA-AES128-SHA256',
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-RSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA',
      'ECDHE-RSA-AES256-SHA',
      'AES128-GCM-SHA256',
      'AES256-GCM-SHA384',
      'AES128-SHA256',
      'AES128-SHA',
      'AES256-SHA',
      'DES-CBC3-SHA',
    ],
    minTLSVersion: 'VersionTLS10',
  },
  Intermediate: { ciphers: Intermediate, minTLSVersion: 'VersionTLS12' },
  Modern: { ciphers: Tls13, minTLSVersion: 'VersionTLS13' },
};

/** library-go's OpenSSL → IANA cipher names (TLS 1.3 names are the same in both). */
const OpenSslToIana: Readonly<Record<string, string>> = {
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256': 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384': 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384': 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305': 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'ECDHE-RSA-CHACHA20-POLY1305': 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-SHA256': 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'ECDHE-RSA-AES128-SHA256': 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'ECDHE-ECDSA-AES128-SHA': 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'ECDHE-RSA-AES128-SHA': 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'ECDHE-ECDSA-AES256-SHA': 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'ECDHE-RSA-AES256-SHA': 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'AES128-GCM-SHA256': 'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'AES256-GCM-SHA384': 'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'AES128-SHA256': 'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'AES128-SHA': 'TLS_RSA_WITH_AES_128_CBC_SHA',
  'AES256-SHA': 'TLS_RSA_WITH_AES_256_CBC_SHA',
  'DES-CBC3-SHA': 'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
};

export interface KubeletTlsFields {
  readonly tlsMinVersion: string;
  readonly tlsCipherSuites: string[];
}

export function kubeletTlsFields(profile: TLSSecurityProfile | undefined): KubeletTlsFields {
  let spec: { ciphers?: readonly string[]; minTLSVersion?: string } = TlsProfiles.Intermediate;
  const type = profile?.type;
  if (type === 'Custom' && profile?.custom !== undefined && profile.custom !== null)
    spec = profile.custom;
  else if (type === 'Old' || type === 'Modern') spec = TlsProfiles[type];
  return {
    tlsMinVersion: spec.minTLSVersion ?? '',
    tlsCipherSuites: (spec.ciphers ?? []).flatMap((c) => {
      const iana = OpenSslToIana[c];
      return iana === undefined ? [] : [iana];
    }),
  };
}
