/**
 * Discovery, as kubeadm's token discovery does it: read kube-public/cluster-info
 * anonymously over TLS without trusting the server yet, pin its CA with the
 * --ca-cert-hash the person copied from the server (and check the bootstrap
 * signer's signature of it when there is one), then read it again with that
 * CA verified, so that from here on the node talks only to the real cluster.
 */
import { request } from 'node:https';
import { CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE, type BootstrapToken } from '../../machinery/bootstrap-token.js';
import { checkCaCertHash } from './ca-cert-hash.js';
import { clusterInfoSignature, parseClusterInfo, type ClusterInfo, type ConfigMapLike } from './cluster-info.js';

export interface DiscoveryOptions {
  /** --server: https://HOST:PORT. */
  readonly server: string;
  /** --ca-cert-hash values; empty only with unsafeSkipCaVerification. */
  readonly caCertHashes: readonly string[];
  readonly unsafeSkipCaVerification: boolean;
  readonly token: BootstrapToken;
  /** Per request (default 10 s). */
  readonly timeoutMs?: number;
}

const CLUSTER_INFO_PATH = `/api/v1/namespaces/${CLUSTER_INFO_NAMESPACE}/configmaps/${CLUSTER_INFO_NAME}`;

/** The cluster's CA, verified; the server is --server (the address this node reaches it at). */
export async function discoverCluster(options: DiscoveryOptions): Promise<ClusterInfo> {
  if (options.caCertHashes.length === 0 && !options.unsafeSkipCaVerification) {
    throw new Error('--ca-cert-hash is required: it is how this node knows the server is your cluster (copy it from `k8ts token create --print-join-command`), or pass --unsafe-skip-ca-verification to trust the first CA the server shows');
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  const unverified = await getClusterInfo(options.server, undefined, timeoutMs);
  const info = parseClusterInfo(unverified);
  if (clusterInfoSignature(unverified, options.token) === 'invalid') {
    throw new Error(`the signature of ${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME} for token id "${options.token.id}" does not match: the token is wrong, or the server is not the cluster you meant`);
  }
  if (options.caCertHashes.length > 0) checkCaCertHash(info.caPem, options.caCertHashes);
  const verified = await getClusterInfo(options.server, info.caPem, timeoutMs);
  if (parseClusterInfo(verified).caPem !== info.caPem) throw new Error(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME} changed between two reads: try again`);
  return { server: options.server, caPem: info.caPem };
}

/** GET cluster-info without credentials; `ca` undefined: without verifying the server (discovery's first read only). */
export async function getClusterInfo(server: string, ca: string | undefined, timeoutMs: number): Promise<ConfigMapLike> {
  const url = new URL(CLUSTER_INFO_PATH, server);
  if (url.protocol !== 'https:') throw new Error(`invalid --server "${server}": must be https://HOST:PORT`);
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { ca, rejectUnauthorized: ca !== undefined, timeout: timeoutMs, headers: { accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e: Error & { code?: string }) => {
      const verifying = ca !== undefined && /certificate|self.signed|CERT|unable to verify/i.test(`${e.code ?? ''} ${e.message}`);
      reject(
        new Error(verifying ? `the server at ${server} does not present a certificate of the cluster CA (${e.message})` : `cannot reach the server at ${server}: ${e.message}`, { cause: e }),
      );
    });
    req.end();
  });
  if (status === 200) {
    try {
      return JSON.parse(body) as ConfigMapLike;
    } catch (e: unknown) {
      throw new Error(`the server at ${server} answered ${CLUSTER_INFO_PATH} with something that is not JSON`, { cause: e });
    }
  }
  if (status === 404) throw new Error(`the server at ${server} publishes no ${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME} (k8ts server writes it once its API server is ready)`);
  if (status === 401 || status === 403) throw new Error(`the server at ${server} does not let anonymous users read ${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME} (HTTP ${status}): it needs --anonymous-auth and the k8ts:bootstrap-signer-clusterinfo Role that k8ts server creates`);
  throw new Error(`the server at ${server} answered ${CLUSTER_INFO_PATH} with HTTP ${status}: ${body.slice(0, 200)}`);
}
