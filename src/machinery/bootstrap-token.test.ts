import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { describe, it } from 'node:test';
import {
  bootstrapSecretMatches,
  bootstrapTokenSecret,
  caCertHash,
  formatBootstrapToken,
  generateBootstrapToken,
  parseBootstrapToken,
} from './bootstrap-token.js';

describe('bootstrap tokens', () => {
  it('parses only <6 of [a-z0-9]>.<16 of [a-z0-9]>', () => {
    assert.deepEqual(parseBootstrapToken('abcdef.0123456789abcdef'), { id: 'abcdef', secret: '0123456789abcdef' });
    for (const bad of ['', 'abcdef', 'ABCDEF.0123456789abcdef', 'abcde.0123456789abcdef', 'abcdef.0123456789abcde', 'abcdef:0123456789abcdef', 'abcdef.0123456789abcdefg']) {
      assert.equal(parseBootstrapToken(bad), undefined, bad);
    }
  });

  it('generates tokens that parse back, each different', () => {
    const a = generateBootstrapToken();
    const b = generateBootstrapToken();
    assert.deepEqual(parseBootstrapToken(formatBootstrapToken(a)), a);
    assert.notEqual(formatBootstrapToken(a), formatBootstrapToken(b));
  });

  it('compares secrets exactly', () => {
    assert.equal(bootstrapSecretMatches('0123456789abcdef', '0123456789abcdef'), true);
    assert.equal(bootstrapSecretMatches('0123456789abcdee', '0123456789abcdef'), false);
    assert.equal(bootstrapSecretMatches('short', '0123456789abcdef'), false);
  });

  it('writes the Secret kubeadm writes, values in base64', () => {
    const secret = bootstrapTokenSecret({ token: { id: 'abcdef', secret: '0123456789abcdef' }, expires: new Date('2026-12-02T00:00:00.123Z'), description: 'join' });
    assert.equal(secret.metadata.name, 'bootstrap-token-abcdef');
    assert.equal(secret.metadata.namespace, 'kube-system');
    assert.equal(secret.type, 'bootstrap.kubernetes.io/token');
    const data = Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.deepEqual(data, {
      'token-id': 'abcdef',
      'token-secret': '0123456789abcdef',
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:k8ts:default-node-token',
      expiration: '2026-12-02T00:00:00Z',
      description: 'join',
    });
  });

  it('hashes the CA certificate\'s public key info, as kubeadm does', async () => {
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '01', name: 'CN=test-ca', keys, signingAlgorithm: alg }, webcrypto);
    const pem = cert.toString('pem');
    const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
    assert.equal(caCertHash(pem), `sha256:${createHash('sha256').update(spki).digest('hex')}`);
    assert.match(caCertHash(pem), /^sha256:[0-9a-f]{64}$/);
  });
});
