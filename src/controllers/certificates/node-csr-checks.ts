/**
 * The signers' checks of a request (upstream's isRequestForSignerFunc): the
 * kubelet ones are the API's (ValidateKubeletClientCSR and
 * ValidateKubeletServingCSR, src/api/certificates/v1/kubelet-csr.ts); the
 * kube-apiserver-client one (validAPIServerClientUsages) only looks at the
 * usages. Each returns upstream's message of the first problem, or undefined.
 */
export { kubeletClientCsrError as kubeletClientProblem, kubeletServingCsrError as kubeletServingProblem } from '../../api/certificates/v1/kubelet-csr.js';

/** kubernetes.io/kube-apiserver-client: client auth required; digital signature and key encipherment optional; nothing else. */
export function apiServerClientUsagesProblem(usages: readonly string[]): string | undefined {
  for (const usage of usages) {
    if (usage !== 'digital signature' && usage !== 'key encipherment' && usage !== 'client auth') return `invalid usage for client certificate: ${usage}`;
  }
  if (!usages.includes('client auth')) return 'missing required usage for client certificate: client auth';
  return undefined;
}
