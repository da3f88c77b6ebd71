/**
 * A joined node's credentials under <data-dir>/pki: the cluster CA it pinned
 * at discovery (ca.crt), its client certificate as system:node:<name>
 * (kubelet.key, kubelet.crt, and kubelet.kubeconfig built from them) and its
 * kubelet's serving certificate (kubelet-serving.key, kubelet-serving.crt).
 * A restarted agent whose files are still good skips the bootstrap, as a
 * kubelet with --bootstrap-kubeconfig does when its kubeconfig is valid.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalIp, describeCertificate, EXTENDED_KEY_USAGE, isIssuedBy, keyMatchesCertificate } from '../pki/certificate-info.js';
import { renderKubeconfig } from '../pki/kubeconfig.js';
import { writeFileAtomic } from '../pki/write-file-atomic.js';

export interface NodeCredentialPaths {
  readonly pkiDir: string;
  readonly caCert: string;
  readonly clientKey: string;
  readonly clientCert: string;
  readonly kubeconfig: string;
  readonly servingKey: string;
  readonly servingCert: string;
}

export function nodeCredentialPaths(dataDir: string): NodeCredentialPaths {
  const pkiDir = join(dataDir, 'pki');
  return {
    pkiDir,
    caCert: join(pkiDir, 'ca.crt'),
    clientKey: join(pkiDir, 'kubelet.key'),
    clientCert: join(pkiDir, 'kubelet.crt'),
    kubeconfig: join(pkiDir, 'kubelet.kubeconfig'),
    servingKey: join(pkiDir, 'kubelet-serving.key'),
    servingCert: join(pkiDir, 'kubelet-serving.crt'),
  };
}

export const nodeUserName = (nodeName: string): string => `system:node:${nodeName}`;
export const NODES_GROUP = 'system:nodes';

/** A certificate closer to its end than this is not reused. */
const MIN_REMAINING_MS = 60_000;

const readOrUndefined = (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined);

export interface CertificateCheck {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly nodeName: string;
  readonly now?: Date;
}

/** Why a node client certificate cannot be used, or undefined when it can. */
export function clientCertificateProblem(c: CertificateCheck): string | undefined {
  return commonProblem(c, EXTENDED_KEY_USAGE.clientAuth) ?? (describeCertificate(c.certPem).organizations.includes(NODES_GROUP) ? undefined : `it is not in group ${NODES_GROUP}`);
}

/** Why a kubelet serving certificate cannot be used for this node name and IP, or undefined when it can. */
export function servingCertificateProblem(c: CertificateCheck & { readonly nodeIp: string }): string | undefined {
  const common = commonProblem(c, EXTENDED_KEY_USAGE.serverAuth);
  if (common !== undefined) return common;
  const info = describeCertificate(c.certPem);
  if (!info.dnsNames.includes(c.nodeName)) return `it does not name ${c.nodeName}`;
  if (!info.ipAddresses.includes(canonicalIp(c.nodeIp))) return `it does not name ${c.nodeIp}`;
  return undefined;
}

function commonProblem(c: CertificateCheck, usage: string): string | undefined {
  let info;
  try {
    info = describeCertificate(c.certPem);
  } catch {
    return 'it does not parse';
  }
  if (!isIssuedBy(c.certPem, c.caPem)) return 'it was not issued by the cluster CA';
  if (!keyMatchesCertificate(c.certPem, c.keyPem)) return 'its key does not match';
  if (info.commonName !== nodeUserName(c.nodeName)) return `it is for ${info.commonName}, not ${nodeUserName(c.nodeName)}`;
  if (!info.extendedKeyUsages.includes(usage)) return 'it lacks the needed extended key usage';
  const now = (c.now ?? new Date()).getTime();
  if (info.notAfter.getTime() - now < MIN_REMAINING_MS) return `it expired (${info.notAfter.toISOString()})`;
  if (info.notBefore.getTime() > now) return 'it is not valid yet';
  return undefined;
}

export interface StoredCredentials {
  readonly caPem?: string;
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  readonly servingCertPem?: string;
  readonly servingKeyPem?: string;
}

export async function readStoredCredentials(paths: NodeCredentialPaths): Promise<StoredCredentials> {
  const [caPem, clientCertPem, clientKeyPem, servingCertPem, servingKeyPem] = await Promise.all(
    [paths.caCert, paths.clientCert, paths.clientKey, paths.servingCert, paths.servingKey].map(readOrUndefined),
  );
  return {
    ...(caPem !== undefined ? { caPem } : {}),
    ...(clientCertPem !== undefined ? { clientCertPem } : {}),
    ...(clientKeyPem !== undefined ? { clientKeyPem } : {}),
    ...(servingCertPem !== undefined ? { servingCertPem } : {}),
    ...(servingKeyPem !== undefined ? { servingKeyPem } : {}),
  };
}

export async function writeCaCert(paths: NodeCredentialPaths, caPem: string): Promise<void> {
  await mkdir(paths.pkiDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(paths.caCert, caPem, { mode: 0o644 });
}

/** Writes the client key and certificate, and the kubeconfig made of them (rewritten only when its bytes change). */
export async function writeClientCredentials(
  paths: NodeCredentialPaths,
  o: { readonly server: string; readonly caPem: string; readonly certPem: string; readonly keyPem: string; readonly nodeName: string; readonly keyAndCert: boolean },
): Promise<void> {
  await mkdir(paths.pkiDir, { recursive: true, mode: 0o700 });
  if (o.keyAndCert) {
    await writeFileAtomic(paths.clientKey, o.keyPem, { mode: 0o600 });
    await writeFileAtomic(paths.clientCert, o.certPem, { mode: 0o644 });
  }
  const kubeconfig = renderKubeconfig({ serverUrl: o.server, caCertPem: o.caPem, clientCertPem: o.certPem, clientKeyPem: o.keyPem, userName: nodeUserName(o.nodeName) });
  if ((await readOrUndefined(paths.kubeconfig)) !== kubeconfig) await writeFileAtomic(paths.kubeconfig, kubeconfig, { mode: 0o600 });
}

export async function writeServingCredentials(paths: NodeCredentialPaths, o: { readonly certPem: string; readonly keyPem: string }): Promise<void> {
  await mkdir(paths.pkiDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(paths.servingKey, o.keyPem, { mode: 0o600 });
  await writeFileAtomic(paths.servingCert, o.certPem, { mode: 0o644 });
}
