/**
 * A new private key and the PKCS#10 certificate request (CSR) a node sends to
 * the cluster, as upstream's kubelet makes them: ECDSA P-256, the subject
 * CN=system:node:<name>, O=system:nodes, and (for the serving certificate)
 * the node's name and IP as subject alternative names.
 *
 * @example
 * const { keyPem, csrPem } = await newCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] });
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { isIP } from 'node:net';
import { KeyObject, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto);

export interface CertificateRequestOptions {
  readonly commonName: string;
  readonly organizations?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

export interface CertificateRequest {
  /** The new private key, PKCS#8 PEM. */
  readonly keyPem: string;
  /** The request, "CERTIFICATE REQUEST" PEM. */
  readonly csrPem: string;
}

export async function newCertificateRequest(options: CertificateRequestOptions): Promise<CertificateRequest> {
  for (const ip of options.ipAddresses ?? []) {
    if (isIP(ip) === 0) throw new Error(`invalid IP address "${ip}" for a certificate request`);
  }
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const names: x509.JsonGeneralNames = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [...(options.organizations ?? []).map((o) => ({ O: [o] })), { CN: [options.commonName] }],
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  const key = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' });
  return { keyPem: typeof key === 'string' ? key : key.toString('utf8'), csrPem: `${csr.toString('pem')}\n` };
}
