/**
 * kube-public/cluster-info, the public facts a joining node reads before it
 * trusts the server: under key `kubeconfig`, a kubeconfig with one cluster
 * (the API server's URL and the CA, as `certificate-authority-data`) and no
 * user, as kubeadm writes it. Upstream's bootstrap signer may add keys
 * `jws-kubeconfig-<token-id>`: a detached JWS (HS256, key the token's secret)
 * of the kubeconfig, which proves that whoever wrote it knows the token.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse, stringify } from 'yaml';
import { CLUSTER_INFO_KUBECONFIG_KEY, CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE, type BootstrapToken } from '../../machinery/bootstrap-token.js';

export interface ClusterInfo {
  readonly server: string;
  readonly caPem: string;
}

export interface ConfigMapLike {
  readonly metadata?: { readonly name?: string | undefined; readonly namespace?: string | undefined };
  readonly data?: Readonly<Record<string, string>>;
}

/** The kubeconfig that cluster-info holds (the bytes a joining node checks). */
export function renderClusterInfoKubeconfig(info: ClusterInfo): string {
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: '', cluster: { server: info.server, 'certificate-authority-data': Buffer.from(info.caPem, 'utf8').toString('base64') } }],
      contexts: null,
      'current-context': '',
      preferences: {},
      users: null,
    },
    { lineWidth: 0 },
  );
}

/** The ConfigMap kube-public/cluster-info as `k8ts server` publishes it. */
export function clusterInfoConfigMap(info: ClusterInfo): { apiVersion: 'v1'; kind: 'ConfigMap'; metadata: { name: string; namespace: string }; data: Record<string, string> } {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CLUSTER_INFO_NAME, namespace: CLUSTER_INFO_NAMESPACE },
    data: { [CLUSTER_INFO_KUBECONFIG_KEY]: renderClusterInfoKubeconfig(info) },
  };
}

/** The server and CA that cluster-info names; throws with what is wrong. */
export function parseClusterInfo(configMap: ConfigMapLike): ClusterInfo {
  const text = configMap.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
  if (text === undefined) throw new Error(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME} has no "${CLUSTER_INFO_KUBECONFIG_KEY}" key`);
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e: unknown) {
    throw new Error(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}: the kubeconfig is not YAML`, { cause: e });
  }
  const clusters = (doc as { clusters?: unknown } | null)?.clusters;
  const cluster = Array.isArray(clusters) ? (clusters[0] as { cluster?: Record<string, unknown> } | undefined)?.cluster : undefined;
  const server = cluster?.['server'];
  const caData = cluster?.['certificate-authority-data'];
  if (typeof server !== 'string' || typeof caData !== 'string' || caData === '') {
    throw new Error(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}: the kubeconfig names no cluster with a server and certificate-authority-data`);
  }
  return { server, caPem: Buffer.from(caData, 'base64').toString('utf8') };
}

const base64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** The detached JWS upstream's bootstrap signer writes under `jws-kubeconfig-<id>` (header..signature). */
export function signClusterInfo(kubeconfig: string, token: BootstrapToken): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', kid: token.id }));
  const signature = createHmac('sha256', token.secret).update(`${header}.${base64url(kubeconfig)}`).digest('base64url');
  return `${header}..${signature}`;
}

export const clusterInfoSignatureKey = (tokenId: string): string => `jws-kubeconfig-${tokenId}`;

/**
 * When cluster-info carries a signature for this token, whether it is right:
 * 'valid', 'invalid', or 'absent' (no bootstrap signer ran; the CA hash is then the only proof).
 */
export function clusterInfoSignature(configMap: ConfigMapLike, token: BootstrapToken): 'valid' | 'invalid' | 'absent' {
  const jws = configMap.data?.[clusterInfoSignatureKey(token.id)];
  const kubeconfig = configMap.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
  if (jws === undefined || kubeconfig === undefined) return 'absent';
  const [header, payload, signature] = jws.split('.');
  if (header === undefined || payload !== '' || signature === undefined) return 'invalid';
  let alg: unknown;
  try {
    alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
  } catch {
    return 'invalid';
  }
  if (alg !== 'HS256') return 'invalid';
  const expected = Buffer.from(createHmac('sha256', token.secret).update(`${header}.${base64url(kubeconfig)}`).digest('base64url'));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? 'valid' : 'invalid';
}
