/**
 * The kubelet server's TLS files when --tls-cert-file is not given: as
 * upstream's kubelet, a self-signed certificate for the node's name and IP,
 * made once and kept under <root-dir>/pki (kubelet.crt holds the certificate
 * and the CA that signed it, kubelet.key its key). And the client CA when
 * --client-ca-file is not given: the CA of the kubelet's kubeconfig (the
 * cluster CA under `k8ts server`), written to <root-dir>/pki/client-ca.crt.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { issueServingCertificate, newCertificateAuthority } from './pki/certificates.js';
import { writeFileAtomic } from './pki/write-file-atomic.js';

export interface ServingFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** True when this call made them. */
  readonly made: boolean;
}

async function usable(certFile: string, keyFile: string, nodeName: string, nodeIP: string): Promise<boolean> {
  try {
    const cert = new X509Certificate(await readFile(certFile, 'utf8'));
    await readFile(keyFile, 'utf8');
    const sans = cert.subjectAltName ?? '';
    return Date.parse(cert.validTo) > Date.now() + 24 * 3600_000 && sans.includes(`DNS:${nodeName}`) && sans.includes(`IP Address:${nodeIP}`);
  } catch {
    return false;
  }
}

export async function ensureSelfSignedServingCert(options: { readonly pkiDir: string; readonly nodeName: string; readonly nodeIP: string }): Promise<ServingFiles> {
  const certFile = join(options.pkiDir, 'kubelet.crt');
  const keyFile = join(options.pkiDir, 'kubelet.key');
  if (await usable(certFile, keyFile, options.nodeName, options.nodeIP)) return { certFile, keyFile, made: false };
  await mkdir(options.pkiDir, { recursive: true, mode: 0o700 });
  const host = hostname().toLowerCase();
  const ca = await newCertificateAuthority({ commonName: `${host}-ca@${Math.floor(Date.now() / 1000)}` });
  const dnsNames = [...new Set([options.nodeName, host, 'localhost'])];
  const serving = await issueServingCertificate(ca, { commonName: `${host}@${Math.floor(Date.now() / 1000)}`, dnsNames, ipAddresses: [options.nodeIP] });
  await writeFileAtomic(keyFile, serving.keyPem, { mode: 0o600 });
  await writeFileAtomic(certFile, `${serving.certPem}${ca.certPem}`, { mode: 0o644 });
  return { certFile, keyFile, made: true };
}

/** Writes `caPem` to <pkiDir>/client-ca.crt (when it differs) and returns the path. */
export async function writeClientCa(pkiDir: string, caPem: string): Promise<string> {
  const file = join(pkiDir, 'client-ca.crt');
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current !== caPem) {
    await mkdir(pkiDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, caPem, { mode: 0o644 });
  }
  return file;
}
