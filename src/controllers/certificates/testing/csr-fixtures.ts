/**
 * Test fixtures of the certificate controllers: x509 certificate requests
 * made with @peculiar/x509, CSR objects around them, a test CA on disk, and
 * a client over the fake client that answers SubjectAccessReviews and the
 * CSR /approval subresource (which the fake client does not serve).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, webcrypto } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SubjectAccessReviewSpec } from 'kubernetes-types/authorization/v1.js';
import type { CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import type { Client, ResourceClient, ResourceRef, WriteOptions } from '../../../client/rest/interface.js';
import type { FakeClient } from '../../../client/testing/fake-client.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { CsrObject } from '../csr.js';

x509.cryptoProvider.set(webcrypto);

export interface RequestOptions {
  readonly cn?: string;
  readonly o?: readonly string[];
  readonly dns?: readonly string[];
  readonly ip?: readonly string[];
  readonly email?: readonly string[];
  readonly uri?: readonly string[];
}

const EC: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

/** A certificate request signed by a fresh P-256 key: its PEM. */
export async function newRequestPem(options: RequestOptions = {}): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const names: x509.JsonGeneralName[] = [
    ...(options.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(options.ip ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(options.email ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(options.uri ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  const name: x509.JsonName = [...(options.o ?? []).map((o) => ({ O: [o] })), ...(options.cn !== undefined ? [{ CN: [options.cn] }] : [])];
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  return request.toString('pem');
}

/** spec.request of a PEM (base64 of its bytes). */
export const requestField = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

export interface CsrOptions {
  readonly name?: string;
  readonly signerName: string;
  readonly request: string;
  readonly usages?: readonly string[];
  readonly username?: string;
  readonly groups?: readonly string[];
  readonly uid?: string;
  readonly extra?: Record<string, string[]>;
  readonly expirationSeconds?: number;
  readonly conditions?: readonly CertificateSigningRequestCondition[];
  readonly certificate?: string;
  readonly creationTimestamp?: string;
}

export function csrObject(options: CsrOptions): CsrObject {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: options.name ?? 'csr-1', ...(options.creationTimestamp !== undefined ? { creationTimestamp: options.creationTimestamp } : {}) },
    spec: {
      signerName: options.signerName,
      request: options.request,
      usages: [...(options.usages ?? [])],
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.groups !== undefined ? { groups: [...options.groups] } : {}),
      ...(options.uid !== undefined ? { uid: options.uid } : {}),
      ...(options.extra !== undefined ? { extra: options.extra } : {}),
      ...(options.expirationSeconds !== undefined ? { expirationSeconds: options.expirationSeconds } : {}),
    },
    status: {
      ...(options.conditions !== undefined ? { conditions: [...options.conditions] } : {}),
      ...(options.certificate !== undefined ? { certificate: options.certificate } : {}),
    },
  };
}

export interface TestCa {
  readonly certPem: string;
  readonly keyPem: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly notAfter: Date;
  readonly keys: webcrypto.CryptoKeyPair;
}

/** A self-signed P-256 CA written to dir/ca.crt and dir/ca.key. */
export async function writeTestCa(dir: string, options: { readonly notAfter?: Date; readonly ca?: boolean; readonly prefix?: string } = {}): Promise<TestCa> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const notAfter = options.notAfter ?? new Date(Date.now() + 10 * 365 * 86_400_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=test-ca',
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter,
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(options.ca ?? true, undefined, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const certPem = `${cert.toString('pem')}\n`;
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  const certFile = join(dir, `${options.prefix ?? 'ca'}.crt`);
  const keyFile = join(dir, `${options.prefix ?? 'ca'}.key`);
  await writeFile(certFile, certPem);
  await writeFile(keyFile, keyPem);
  return { certPem, keyPem, certFile, keyFile, notAfter: new Date(cert.notAfter), keys };
}

export interface CsrTestClient {
  readonly client: Client;
  /** Every SubjectAccessReview spec asked, in order. */
  readonly reviews: SubjectAccessReviewSpec[];
  /** Every CSR body PUT to /approval, in order. */
  readonly approvals: CsrObject[];
}

/**
 * The fake client plus what the API server would do for the CSR controllers:
 * a SubjectAccessReview is answered by `authorize` (which may throw), and a
 * PUT to a CSR's /approval is stored as a status update.
 */
export function newCsrTestClient(fake: FakeClient, authorize: (spec: SubjectAccessReviewSpec) => boolean): CsrTestClient {
  const reviews: SubjectAccessReviewSpec[] = [];
  const approvals: CsrObject[] = [];
  const client: Client = {
    resource<T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceClient<T> {
      const base = fake.resource<T>(ref);
      if (ref.resource === 'subjectaccessreviews') {
        const reviewClient = Object.create(base) as ResourceClient<T>;
        reviewClient.create = async (object: T): Promise<T> => {
          const spec = (object as unknown as { spec: SubjectAccessReviewSpec }).spec;
          reviews.push(spec);
          return { ...object, status: { allowed: authorize(spec) } };
        };
        return reviewClient;
      }
      if (ref.resource === 'certificatesigningrequests') {
        const csrClient = Object.create(base) as ResourceClient<T>;
        csrClient.updateSubresource = async <R>(name: string, subresource: string, body: unknown, options?: WriteOptions): Promise<R> => {
          if (subresource !== 'approval') return base.updateSubresource<R>(name, subresource, body, options);
          approvals.push(body as CsrObject);
          return base.updateSubresource<R>(name, 'status', body, options);
        };
        return csrClient;
      }
      return base;
    },
  };
  return { client, reviews, approvals };
}
