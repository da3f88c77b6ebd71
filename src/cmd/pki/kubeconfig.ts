/**
 * Kubeconfig files for the cluster's identities: one cluster, one user with
 * an embedded client certificate, one context, selected as current.
 *
 * @example
 * await writeKubeconfig('.k8ts/admin.kubeconfig', {
 *   serverUrl: 'https://127.0.0.1:6443', caCertPem, clientCertPem, clientKeyPem,
 *   userName: 'kubernetes-admin', contextName: 'k8ts',
 * });
 */
import { stringify } from 'yaml';
import { writeFileAtomic } from './write-file-atomic.js';

/** Options for {@link renderKubeconfig} and {@link writeKubeconfig}. */
export interface KubeconfigOptions {
  /** The API server's URL, e.g. `https://127.0.0.1:6443`. */
  serverUrl: string;
  /** PEM of the CA that signed the API server's serving certificate. */
  caCertPem: string;
  /** PEM of the user's client certificate. */
  clientCertPem: string;
  /** PEM of the user's private key. */
  clientKeyPem: string;
  /** Name of the user entry, e.g. `kubernetes-admin` or `system:kube-scheduler`. */
  userName: string;
  /** Name of the cluster entry (default `k8ts`). */
  clusterName?: string;
  /** Name of the context, which becomes current-context (default `<userName>@<clusterName>`). */
  contextName?: string;
}

/** Default name of the cluster entry in every kubeconfig k8ts writes. */
export const CLUSTER_NAME = 'k8ts';

/** Renders a kubeconfig (apiVersion v1, kind Config) as YAML; the same options always give the same bytes. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const url = new URL(options.serverUrl);
  if (url.protocol !== 'https:') throw new Error(`invalid server URL "${options.serverUrl}": must be https`);
  const clusterName = options.clusterName ?? CLUSTER_NAME;
  const contextName = options.contextName ?? `${options.userName}@${clusterName}`;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: clusterName,
        cluster: { server: options.serverUrl, 'certificate-authority-data': base64(options.caCertPem) },
      },
    ],
    users: [
      {
        name: options.userName,
        user: {
          'client-certificate-data': base64(options.clientCertPem),
          'client-key-data': base64(options.clientKeyPem),
        },
      },
    ],
    contexts: [{ name: contextName, context: { cluster: clusterName, user: options.userName } }],
    'current-context': contextName,
    preferences: {},
  };
  return stringify(config, { lineWidth: 0 });
}

/** Writes {@link renderKubeconfig}'s output to `path` atomically, with mode 0600 (it holds a private key). */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  await writeFileAtomic(path, renderKubeconfig(options), { mode: 0o600 });
}

function base64(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}
