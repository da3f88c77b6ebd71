/**
 * The checks upstream makes of kubelet certificate requests
 * (pkg/apis/certificates helpers: ValidateKubeletClientCSR,
 * ValidateKubeletServingCSR) and of kube-apiserver-client usages, with
 * upstream's error messages: the signer writes them into a Failed condition.
 * Each returns the first problem found, or undefined.
 */
import { formatSet, NODE_USER_PREFIX, NODES_GROUP, sameSet, type ParsedCertificateRequest } from './csr.js';

const KUBELET_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const KUBELET_CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];
const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const KUBELET_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

const isSystemNodesOnly = (req: ParsedCertificateRequest): boolean => req.organizations.length === 1 && req.organizations[0] === NODES_GROUP;

/** A kubelet's client certificate request: O exactly [system:nodes], no SANs, CN system:node:…, usages as upstream's. */
export function kubeletClientProblem(req: ParsedCertificateRequest, usages: readonly string[]): string | undefined {
  if (!isSystemNodesOnly(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, KUBELET_CLIENT_USAGES) && !sameSet(usages, KUBELET_CLIENT_USAGES_NO_RSA)) return `usages did not match ${formatSet(KUBELET_CLIENT_USAGES)}`;
  return undefined;
}

/** A kubelet's serving certificate request: O exactly [system:nodes], a DNS or IP SAN, no email/URI SANs, usages as upstream's, CN system:node:…. */
export function kubeletServingProblem(req: ParsedCertificateRequest, usages: readonly string[]): string | undefined {
  if (!isSystemNodesOnly(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, KUBELET_SERVING_USAGES) && !sameSet(usages, KUBELET_SERVING_USAGES_NO_RSA)) return `usages did not match ${formatSet(KUBELET_SERVING_USAGES)}`;
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** kubernetes.io/kube-apiserver-client: client auth required; digital signature and key encipherment optional; nothing else. */
export function apiServerClientUsagesProblem(usages: readonly string[]): string | undefined {
  for (const usage of usages) {
    if (usage !== 'digital signature' && usage !== 'key encipherment' && usage !== 'client auth') return `invalid usage for client certificate: ${usage}`;
  }
  if (!usages.includes('client auth')) return 'missing required usage for client certificate: client auth';
  return undefined;
}
