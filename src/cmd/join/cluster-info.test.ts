import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { newCertificateAuthority } from '../pki/certificates.js';
import { clusterInfoConfigMap, clusterInfoSignature, clusterInfoSignatureKey, parseClusterInfo, signClusterInfo } from './cluster-info.js';

describe('cluster-info', () => {
  it('is kube-public/cluster-info with a kubeconfig of one cluster and no user, and reads back', async () => {
    const ca = await newCertificateAuthority();
    const cm = clusterInfoConfigMap({ server: 'https://127.0.0.1:6443', caPem: ca.certPem });
    assert.deepEqual(cm.metadata, { name: 'cluster-info', namespace: 'kube-public' });
    const doc = parse(cm.data['kubeconfig']!) as Record<string, unknown>;
    assert.equal(doc['kind'], 'Config');
    assert.equal(doc['users'], null);
    assert.deepEqual(parseClusterInfo(cm), { server: 'https://127.0.0.1:6443', caPem: ca.certPem });
  });

  it('says what is missing', () => {
    assert.throws(() => parseClusterInfo({ data: {} }), /kube-public\/cluster-info has no "kubeconfig" key/);
    assert.throws(() => parseClusterInfo({ data: { kubeconfig: 'clusters: []' } }), /names no cluster with a server and certificate-authority-data/);
    assert.throws(() => parseClusterInfo({ data: { kubeconfig: '{' } }), /the kubeconfig is not YAML/);
  });

  it("checks the bootstrap signer's detached JWS when there is one", async () => {
    const ca = await newCertificateAuthority();
    const cm = clusterInfoConfigMap({ server: 'https://127.0.0.1:6443', caPem: ca.certPem });
    const token = { id: 'abcdef', secret: '0123456789abcdef' };
    assert.equal(clusterInfoSignature(cm, token), 'absent');
    const signed = { data: { ...cm.data, [clusterInfoSignatureKey(token.id)]: signClusterInfo(cm.data['kubeconfig']!, token) } };
    assert.equal(clusterInfoSignature(signed, token), 'valid');
    assert.equal(clusterInfoSignature(signed, { id: 'abcdef', secret: 'ffffffffffffffff' }), 'invalid');
    assert.equal(clusterInfoSignature({ data: { ...signed.data, kubeconfig: `${cm.data['kubeconfig']!}#` } }, token), 'invalid');
    assert.equal(clusterInfoSignature({ data: { ...cm.data, [clusterInfoSignatureKey(token.id)]: 'garbage' } }, token), 'invalid');
  });
});
