/**
 * The kubeconfig the server hands new nodes at `/etc/kubernetes/kubeconfig` in cluster mode
 * (upstream `kubeconfigFromSecret`): cluster `local` at `--apiserver-url` with the CA inline, user
 * `kubelet` with the bootstrap token, context `kubelet`. Written as Go's
 * `yaml.Marshal(clientcmdv1.Config)` writes it (keys sorted, `preferences: {}`).
 */
import { marshalGoYaml } from '../lib/go-yaml.js';

export interface NodeKubeconfigInput {
  readonly server: string;
  readonly caData: Uint8Array;
  /** The token file's content as is (upstream does not trim it). */
  readonly token: string;
}

export function nodeKubeconfig(input: NodeKubeconfigInput): string {
  const cluster: Record<string, string> = { server: input.server };
  if (input.caData.length > 0)
    cluster['certificate-authority-data'] = Buffer.from(input.caData).toString('base64');
  const user: Record<string, string> = input.token === '' ? {} : { token: input.token };
  return marshalGoYaml({
    preferences: {},
    clusters: [{ name: 'local', cluster }],
    users: [{ name: 'kubelet', user }],
    contexts: [{ name: 'kubelet', context: { cluster: 'local', user: 'kubelet' } }],
    'current-context': 'kubelet',
  });
}
