/**
 * Asks the cluster for a certificate the way upstream's kubelet does: create a
 * certificates.k8s.io/v1 CertificateSigningRequest for a signer, then watch it
 * until a signer has set status.certificate. A Denied or Failed condition ends
 * the wait with its reason; so does the deadline.
 */
import { createHash, createPublicKey } from 'node:crypto';
import type { KubeObject } from '../../machinery/meta.js';
import { isAlreadyExists, StatusError } from '../../machinery/status.js';
import type { Client } from '../../client/rest/interface.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../client/rest/resources.js';

export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

/** Upstream kubelet's usages for an ECDSA key (key encipherment only goes with RSA keys). */
export const CLIENT_USAGES = ['digital signature', 'client auth'] as const;
export const SERVING_USAGES = ['digital signature', 'server auth'] as const;

export interface CertificateSigningRequest extends KubeObject {
  spec?: { request?: string; signerName?: string; usages?: string[]; expirationSeconds?: number; username?: string };
  status?: { certificate?: string; conditions?: { type: string; status?: string; reason?: string; message?: string }[] };
}

export interface RequestCertificateOptions {
  /** The CSR's name (see {@link csrNameFor}). */
  readonly name: string;
  /** PEM "CERTIFICATE REQUEST". */
  readonly csrPem: string;
  readonly signerName: string;
  readonly usages: readonly string[];
  /** How long to wait for the certificate. */
  readonly timeoutMs: number;
  /** Called once the CSR exists (for a progress line). */
  readonly onCreated?: (name: string) => void;
}

/**
 * `node-csr-<digest>` of the request's key, signer and usages: one name per
 * request, so that a retry with the same key finds its earlier CSR.
 */
export function csrNameFor(o: { readonly keyPem: string; readonly signerName: string; readonly usages: readonly string[] }): string {
  const spki = createPublicKey(o.keyPem).export({ type: 'spki', format: 'der' });
  const digest = createHash('sha256').update(spki).update(`\n${o.signerName}\n${o.usages.join(',')}`).digest('base64url');
  return `node-csr-${digest}`;
}

/** What a CSR's status says: the PEM certificate, a refusal, or nothing yet. */
export function csrOutcome(csr: CertificateSigningRequest): { certificate: string } | { refused: string } | undefined {
  for (const c of csr.status?.conditions ?? []) {
    if ((c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False') {
      const why = [c.reason, c.message].filter((s) => s !== undefined && s !== '').join(': ');
      return { refused: `certificate signing request ${csr.metadata.name ?? ''} was ${c.type === 'Denied' ? 'denied' : 'not signed (Failed)'}${why === '' ? '' : `: ${why}`}` };
    }
  }
  const cert = csr.status?.certificate;
  if (cert !== undefined && cert !== '') return { certificate: Buffer.from(cert, 'base64').toString('utf8') };
  return undefined;
}

/** The issued certificate (PEM); throws when refused, at the deadline, or when the server refuses the request. */
export async function requestCertificate(client: Client, options: RequestCertificateOptions): Promise<string> {
  const csrs = client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS);
  const name = options.name;
  const body: CertificateSigningRequest = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(options.csrPem, 'utf8').toString('base64'), signerName: options.signerName, usages: [...options.usages] },
  };
  let current: CertificateSigningRequest;
  try {
    current = await csrs.create(body);
  } catch (e: unknown) {
    if (!isAlreadyExists(e)) throw describeRefusal(e, options.signerName);
    current = await csrs.get(name);
  }
  options.onCreated?.(name);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const outcome = csrOutcome(current);
    if (outcome !== undefined) {
      if ('refused' in outcome) throw new Error(outcome.refused);
      return outcome.certificate;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    const next = await watchForChange(client, name, current.metadata.resourceVersion ?? '', left);
    current = next ?? (await csrs.get(name));
  }
  throw new Error(`certificate signing request ${name} (signer ${options.signerName}) was not approved and signed within ${Math.round(options.timeoutMs / 1000)} s: is the controller manager running its csrapproving and csrsigning controllers? (kubectl get csr; kubectl certificate approve ${name})`);
}

/** The next state of the CSR after `resourceVersion`, or undefined when the watch ended or the time ran out first. */
async function watchForChange(client: Client, name: string, resourceVersion: string, timeoutMs: number): Promise<CertificateSigningRequest | undefined> {
  const stream = client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS).watch({
    fieldSelector: `metadata.name=${name}`,
    resourceVersion,
    timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
  });
  const timer = setTimeout(() => stream.cancel(), timeoutMs);
  try {
    for await (const event of stream) {
      if (event.type === 'ADDED' || event.type === 'MODIFIED') return event.object;
      if (event.type === 'DELETED') throw new Error(`certificate signing request ${name} was deleted before it was signed`);
    }
    return undefined;
  } catch (e: unknown) {
    if (e instanceof StatusError && e.code === 410) return undefined; // expired resourceVersion: get it again
    throw e;
  } finally {
    clearTimeout(timer);
    stream.cancel();
  }
}

function describeRefusal(e: unknown, signerName: string): Error {
  if (e instanceof StatusError && e.code === 401) {
    return new Error(`the server refused the credentials (401 Unauthorized): check --token (\`k8ts token list\` on the server shows the valid ones; they expire)`, { cause: e });
  }
  if (e instanceof StatusError && e.code === 403) {
    return new Error(`the server does not allow this identity to request a ${signerName} certificate: ${e.message}`, { cause: e });
  }
  return e instanceof Error ? e : new Error(String(e));
}
