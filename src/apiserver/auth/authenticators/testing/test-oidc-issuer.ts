/**
 * A tiny OpenID Connect issuer for tests, on 127.0.0.1 over HTTPS with a
 * self-signed certificate of its own (the "test CA" a test trusts with
 * --oidc-ca-file): the discovery document, the JWKS, and ID tokens signed
 * with its key (or, to test refusals, with a foreign one).
 */
import 'reflect-metadata';
import { generateKeyPairSync, KeyObject, webcrypto, type KeyObject as NodeKeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';
import { exportJWK, SignJWT, type JWTPayload } from 'jose';

export interface TestOidcIssuer {
  /** `https://127.0.0.1:PORT` (the `iss` of its tokens). */
  readonly url: string;
  /** The PEM of the certificate it serves with: the CA to trust. */
  readonly caPem: string;
  /** An ID token with these claims (iss, iat and a 1 h exp by default), signed with its key or `options.key`. */
  sign(claims: JWTPayload, options?: { key?: NodeKeyObject }): Promise<string>;
  /** Requests it answered, by path (to see the JWKS was fetched). */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startTestOidcIssuer(): Promise<TestOidcIssuer> {
  const tls = await selfSignedCertificate();
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(await exportJWK(signing.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const requests: string[] = [];
  let url = '';
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    requests.push(req.url ?? '');
    const send = (value: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.url === '/.well-known/openid-configuration') send({ issuer: url, jwks_uri: `${url}/keys`, id_token_signing_alg_values_supported: ['RS256'] });
    else if (req.url === '/keys') send({ keys: [jwk] });
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    caPem: tls.certPem,
    requests,
    async sign(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, iat: now, exp: now + 3600, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .sign(options.key ?? signing.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function selfSignedCertificate(): Promise<{ certPem: string; keyPem: string }> {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=test-oidc-issuer',
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 24 * 3600_000),
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }]),
    ],
  });
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem: cert.toString('pem'), keyPem };
}
