/**
 * What makes a request a kubelet's (upstream's ValidateKubeletClientCSR and
 * ValidateKubeletServingCSR in pkg/apis/certificates): the rules the
 * kube-apiserver-client-kubelet and kubelet-serving signers, and the CSR
 * approver, apply before they issue or approve. The API server itself accepts
 * any well-formed request for these signers, as upstream's does; a signer
 * that refuses one marks it Failed with the message returned here.
 */
import type { ParsedCertificateRequest } from './certificate-request.js';

export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

const NODES_GROUP = 'system:nodes';
const NODE_PREFIX = 'system:node:';

const CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment'];
const CLIENT_USAGES_NO_RSA = ['client auth', 'digital signature'];
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

const sameSet = (usages: readonly string[], wanted: readonly string[]): boolean => {
  const set = new Set(usages);
  return set.size === wanted.length && wanted.every((u) => set.has(u));
};
const onlyNodesOrganization = (req: ParsedCertificateRequest): boolean => req.organizations.length === 1 && req.organizations[0] === NODES_GROUP;

/** Why this is not a kubelet client certificate request, or undefined when it is. */
export function kubeletClientCsrError(req: ParsedCertificateRequest, usages: readonly string[]): string | undefined {
  if (!onlyNodesOrganization(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, CLIENT_USAGES) && !sameSet(usages, CLIENT_USAGES_NO_RSA)) return `usages did not match [${CLIENT_USAGES.join(' ')}]`;
  return undefined;
}

/** Why this is not a kubelet serving certificate request, or undefined when it is. */
export function kubeletServingCsrError(req: ParsedCertificateRequest, usages: readonly string[]): string | undefined {
  if (!onlyNodesOrganization(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, SERVING_USAGES) && !sameSet(usages, SERVING_USAGES_NO_RSA)) return `usages did not match [${SERVING_USAGES.join(' ')}]`;
  if (!req.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  return undefined;
}
