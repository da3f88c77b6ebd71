import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { caCertHash } from '../../machinery/bootstrap-token.js';
import { newCertificateAuthority, type CertificateAuthority } from '../pki/certificates.js';
import { clusterInfoConfigMap, clusterInfoSignatureKey, signClusterInfo } from './cluster-info.js';
import { discoverCluster } from './discovery.js';
import { startClusterInfoServer, type ClusterInfoServer } from './testing/cluster-info-server.js';

const token = { id: 'abcdef', secret: '0123456789abcdef' };

describe('discovery', () => {
  let ca: CertificateAuthority;
  let server: ClusterInfoServer;
  let impostor: ClusterInfoServer;
  before(async () => {
    ca = await newCertificateAuthority();
    server = await startClusterInfoServer(ca);
    server.answer = { status: 200, body: clusterInfoConfigMap({ server: 'https://10.0.0.1:6443', caPem: ca.certPem }) };
    // Serves the real cluster-info, but with a serving certificate of another CA.
    impostor = await startClusterInfoServer(await newCertificateAuthority());
    impostor.answer = server.answer;
  });
  after(async () => {
    await server.close();
    await impostor.close();
  });

  it('returns the CA when its hash matches, and the server it was asked for', async () => {
    const info = await discoverCluster({ server: server.url, caCertHashes: [caCertHash(ca.certPem)], unsafeSkipCaVerification: false, token });
    assert.deepEqual(info, { server: server.url, caPem: ca.certPem });
    assert.ok(server.requests.every((r) => r.startsWith('GET /api/v1/namespaces/kube-public/configmaps/cluster-info ') && !r.includes('Bearer')), 'anonymous reads');
  });

  it('refuses a CA whose hash does not match, naming both hashes', async () => {
    const wrong = `sha256:${'0'.repeat(64)}`;
    await assert.rejects(
      discoverCluster({ server: server.url, caCertHashes: [wrong], unsafeSkipCaVerification: false, token }),
      (e: Error) => e.message.includes(wrong) && e.message.includes(caCertHash(ca.certPem)) && /does not match --ca-cert-hash/.test(e.message),
    );
  });

  it('refuses to go on without --ca-cert-hash unless told to skip the check', async () => {
    await assert.rejects(discoverCluster({ server: server.url, caCertHashes: [], unsafeSkipCaVerification: false, token }), /--ca-cert-hash is required.*--unsafe-skip-ca-verification/);
    assert.equal((await discoverCluster({ server: server.url, caCertHashes: [], unsafeSkipCaVerification: true, token })).caPem, ca.certPem);
  });

  it('refuses a server whose certificate is not of the CA it publishes', async () => {
    await assert.rejects(
      discoverCluster({ server: impostor.url, caCertHashes: [caCertHash(ca.certPem)], unsafeSkipCaVerification: false, token }),
      /does not present a certificate of the cluster CA/,
    );
  });

  it('refuses cluster-info signed for this token id with another secret', async () => {
    const cm = clusterInfoConfigMap({ server: 'https://10.0.0.1:6443', caPem: ca.certPem });
    const saved = server.answer;
    server.answer = { status: 200, body: { ...cm, data: { ...cm.data, [clusterInfoSignatureKey(token.id)]: signClusterInfo(cm.data['kubeconfig']!, { id: token.id, secret: 'zzzzzzzzzzzzzzzz' }) } } };
    try {
      await assert.rejects(discoverCluster({ server: server.url, caCertHashes: [caCertHash(ca.certPem)], unsafeSkipCaVerification: false, token }), /signature of kube-public\/cluster-info for token id "abcdef" does not match/);
    } finally {
      server.answer = saved;
    }
  });

  it('says why when the server publishes nothing, forbids it, or is not there', async () => {
    const saved = server.answer;
    const args = { server: server.url, caCertHashes: [caCertHash(ca.certPem)], unsafeSkipCaVerification: false, token };
    try {
      server.answer = { status: 404, body: {} };
      await assert.rejects(discoverCluster(args), /publishes no kube-public\/cluster-info/);
      server.answer = { status: 403, body: {} };
      await assert.rejects(discoverCluster(args), /does not let anonymous users read kube-public\/cluster-info \(HTTP 403\)/);
    } finally {
      server.answer = saved;
    }
    await assert.rejects(discoverCluster({ ...args, server: 'https://127.0.0.1:1' }), /cannot reach the server at https:\/\/127\.0\.0\.1:1/);
    await assert.rejects(discoverCluster({ ...args, server: 'http://127.0.0.1:1' }), /must be https/);
  });
});
