/**
 * The TLS bootstrap of a joining node, start to end: reuse good credentials
 * from the data directory, or discover the cluster CA (pinned by
 * --ca-cert-hash), request a client certificate as system:node:<name> with
 * the bootstrap token, and then, as that node, a kubelet serving certificate
 * for the node's name and IP.
 */
import { parseBootstrapToken, type BootstrapToken } from '../../machinery/bootstrap-token.js';
import { newHttpClient } from '../../client/rest/http-client.js';
import type { Client } from '../../client/rest/interface.js';
import type { RestConfig } from '../../client/rest/rest-config.js';
import { defaultUserAgent } from '../../client/rest/rest-config.js';
import { newCertificateRequest } from './certificate-request.js';
import { discoverCluster } from './discovery.js';
import {
  clientCertificateProblem,
  nodeCredentialPaths,
  nodeUserName,
  NODES_GROUP,
  readStoredCredentials,
  servingCertificateProblem,
  writeCaCert,
  writeClientCredentials,
  writeServingCredentials,
  type NodeCredentialPaths,
} from './node-credentials.js';
import { CLIENT_USAGES, csrNameFor, KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBELET_SERVING_SIGNER, requestCertificate, SERVING_USAGES } from './request-certificate.js';

export interface NodeBootstrapOptions {
  readonly dataDir: string;
  /** --server. */
  readonly server: string;
  readonly nodeName: string;
  readonly nodeIp: string;
  /** --token; needed only when there are no good credentials yet. */
  readonly token?: string;
  readonly caCertHashes: readonly string[];
  readonly unsafeSkipCaVerification: boolean;
  /** How long to wait for each certificate. */
  readonly csrTimeoutMs: number;
  /** Progress lines. */
  readonly log: (line: string) => void;
  /** The client of a RestConfig (tests may wrap it); default the HTTP client. */
  readonly newClient?: (config: RestConfig) => Client & { close?(): void };
}

export interface NodeBootstrapResult {
  readonly paths: NodeCredentialPaths;
  /** Names of the CSRs this run created (empty when everything was reused). */
  readonly requested: readonly string[];
}

/** The bootstrap token of --token, or an Error in kubeadm's words. */
export function parseTokenFlag(token: string): BootstrapToken {
  const parsed = parseBootstrapToken(token);
  if (parsed === undefined) throw new Error(`the bootstrap token "${token}" was not of the form "[a-z0-9]{6}.[a-z0-9]{16}"`);
  return parsed;
}

export async function bootstrapNode(options: NodeBootstrapOptions): Promise<NodeBootstrapResult> {
  const paths = nodeCredentialPaths(options.dataDir);
  const newClient = options.newClient ?? ((config: RestConfig) => newHttpClient(config));
  const userAgent = defaultUserAgent('agent');
  const requested: string[] = [];
  const token = options.token !== undefined ? parseTokenFlag(options.token) : undefined;
  const stored = await readStoredCredentials(paths);
  const { caPem: storedCa, clientCertPem, clientKeyPem } = stored;
  const check = { nodeName: options.nodeName };

  let caPem: string;
  let client: { certPem: string; keyPem: string };
  const clientProblem =
    storedCa === undefined || clientCertPem === undefined || clientKeyPem === undefined
      ? 'none yet'
      : clientCertificateProblem({ ...check, caPem: storedCa, certPem: clientCertPem, keyPem: clientKeyPem });
  if (clientProblem === undefined && storedCa !== undefined && clientCertPem !== undefined && clientKeyPem !== undefined) {
    caPem = storedCa;
    client = { certPem: clientCertPem, keyPem: clientKeyPem };
    options.log(`credentials: reusing the client certificate of ${nodeUserName(options.nodeName)} in ${paths.pkiDir}`);
    await writeClientCredentials(paths, { server: options.server, caPem, ...client, nodeName: options.nodeName, keyAndCert: false });
  } else {
    if (token === undefined) throw new Error(`no usable credentials in ${paths.pkiDir} (${clientProblem}) and no --token to get them: pass --token and --ca-cert-hash (k8ts token create --print-join-command on the server)`);
    const info = await discoverCluster({ server: options.server, caCertHashes: options.caCertHashes, unsafeSkipCaVerification: options.unsafeSkipCaVerification, token });
    caPem = info.caPem;
    options.log(`discovery: the cluster CA of ${options.server} matches ${options.caCertHashes.length > 0 ? '--ca-cert-hash' : 'nothing (--unsafe-skip-ca-verification)'}`);
    await writeCaCert(paths, caPem);
    const request = await newCertificateRequest({ commonName: nodeUserName(options.nodeName), organizations: [NODES_GROUP] });
    const bootstrapClient = newClient({ server: options.server, ca: caPem, token: `${token.id}.${token.secret}`, userAgent, maxRetries: 3 });
    try {
      const name = csrNameFor({ keyPem: request.keyPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: CLIENT_USAGES });
      const certPem = await requestCertificate(bootstrapClient, {
        name,
        csrPem: request.csrPem,
        signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
        usages: CLIENT_USAGES,
        timeoutMs: options.csrTimeoutMs,
        onCreated: (n) => options.log(`credentials: waiting for certificate signing request ${n} (${KUBE_APISERVER_CLIENT_KUBELET_SIGNER}) to be approved and signed`),
      });
      requested.push(name);
      const problem = clientCertificateProblem({ ...check, caPem, certPem, keyPem: request.keyPem });
      if (problem !== undefined) throw new Error(`the certificate issued for ${name} cannot be used: ${problem}`);
      client = { certPem, keyPem: request.keyPem };
    } finally {
      bootstrapClient.close?.();
    }
    await writeClientCredentials(paths, { server: options.server, caPem, ...client, nodeName: options.nodeName, keyAndCert: true });
    options.log(`credentials: wrote the client certificate of ${nodeUserName(options.nodeName)} and ${paths.kubeconfig}`);
  }

  const servingProblem =
    stored.servingCertPem === undefined || stored.servingKeyPem === undefined
      ? 'none yet'
      : servingCertificateProblem({ ...check, nodeIp: options.nodeIp, caPem, certPem: stored.servingCertPem, keyPem: stored.servingKeyPem });
  if (servingProblem === undefined) {
    options.log(`credentials: reusing the kubelet serving certificate in ${paths.pkiDir}`);
    return { paths, requested };
  }
  const request = await newCertificateRequest({ commonName: nodeUserName(options.nodeName), organizations: [NODES_GROUP], dnsNames: [options.nodeName], ipAddresses: [options.nodeIp] });
  const nodeClient = newClient({ server: options.server, ca: caPem, clientCert: client.certPem, clientKey: client.keyPem, userAgent, maxRetries: 3 });
  try {
    const name = csrNameFor({ keyPem: request.keyPem, signerName: KUBELET_SERVING_SIGNER, usages: SERVING_USAGES });
    const certPem = await requestCertificate(nodeClient, {
      name,
      csrPem: request.csrPem,
      signerName: KUBELET_SERVING_SIGNER,
      usages: SERVING_USAGES,
      timeoutMs: options.csrTimeoutMs,
      onCreated: (n) => options.log(`credentials: waiting for certificate signing request ${n} (${KUBELET_SERVING_SIGNER}) to be approved and signed`),
    });
    requested.push(name);
    const problem = servingCertificateProblem({ ...check, nodeIp: options.nodeIp, caPem, certPem, keyPem: request.keyPem });
    if (problem !== undefined) throw new Error(`the certificate issued for ${name} cannot be used: ${problem}`);
    await writeServingCredentials(paths, { certPem, keyPem: request.keyPem });
    options.log(`credentials: wrote the kubelet serving certificate for ${options.nodeName} and ${options.nodeIp}`);
  } finally {
    nodeClient.close?.();
  }
  return { paths, requested };
}
