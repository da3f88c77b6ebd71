/**
 * TLS bootstrap's controller-manager side against a real `k8ts server`
 * (budget 25 s): the controller manager runs with
 * --cluster-signing-cert-file/--cluster-signing-key-file set to the cluster
 * CA the server wrote. A bootstrapper (a client certificate CN
 * system:bootstrap:abcdef, O system:bootstrappers, from that CA) whose group
 * the test binds to system:node-bootstrapper and
 * ...:certificatesigningrequests:nodeclient creates node client CSRs: a
 * well-formed one is Approved (csrapproving, after a SubjectAccessReview)
 * and Issued (csrsigning) with a certificate the CA verifies; one with the
 * wrong O stays Pending. A node asking for its own kubelet serving
 * certificate gets it (kubelet-serving-approver); one asking in another
 * node's name does not. An approved kube-apiserver-client request with a
 * server usage is marked Failed. Each "stays Pending" is checked behind a barrier: it
 * is created first, and a request created after it has been issued.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { issueClientCertificate, loadCertificateAuthority } from '../../../src/cmd/pki/certificates.js';
import { writeKubeconfig } from '../../../src/cmd/pki/kubeconfig.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { builtinResource, CERTIFICATE_SIGNING_REQUESTS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import type { CsrObject } from '../../../src/controllers/certificates/csr.js';
import { newRequestPem, type RequestOptions } from '../../../src/controllers/certificates/testing/csr-fixtures.js';
import { newKubectl } from '../testing/kubectl.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';

const NODE = 'csr-e2e-node';
const CLIENT_USAGES = ['digital signature', 'client auth'];
const SERVING_USAGES = ['digital signature', 'server auth'];
const CLUSTER_ROLE_BINDINGS = builtinResource('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings');

describe('CSR approval and signing (e2e)', { timeout: 60_000 }, () => {
  let root: string;
  let server: K8tsProcess | undefined;
  let admin: HttpClient;
  let bootstrapper: HttpClient;
  let node: HttpClient;
  const clients: HttpClient[] = [];
  let caPem: string;
  let kubeconfig: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-csr-'));
    const pki = join(root, 'data', 'pki');
    server = startK8ts([
      'server',
      '--data-dir',
      join(root, 'data'),
      '--secure-port',
      '0',
      '--disable-agent',
      `--controller-manager-arg=--cluster-signing-cert-file=${join(pki, 'ca.crt')}`,
      `--controller-manager-arg=--cluster-signing-key-file=${join(pki, 'ca.key')}`,
    ]);
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    kubeconfig = line.slice('export KUBECONFIG='.length).trim();
    admin = newHttpClient(restConfigFromKubeconfig(kubeconfig));
    clients.push(admin);
    caPem = await readFile(join(pki, 'ca.crt'), 'utf8');
    const ca = await loadCertificateAuthority(caPem, await readFile(join(pki, 'ca.key'), 'utf8'));
    const serverUrl = (parse(await readFile(kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] }).clusters[0]!.cluster.server;
    const identity = async (file: string, commonName: string, organizations: string[]): Promise<HttpClient> => {
      const cert = await issueClientCertificate(ca, { commonName, organizations });
      await writeKubeconfig(join(root, file), { serverUrl, caCertPem: caPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, userName: commonName });
      const client = newHttpClient(restConfigFromKubeconfig(join(root, file)));
      clients.push(client);
      return client;
    };
    bootstrapper = await identity('bootstrap.kubeconfig', 'system:bootstrap:abcdef', ['system:bootstrappers']);
    node = await identity('node.kubeconfig', `system:node:${NODE}`, ['system:nodes']);
    // The bindings kubeadm makes for bootstrap tokens, to the bootstrappers' group.
    for (const [name, role] of [
      ['csr-e2e-bootstrapper', 'system:node-bootstrapper'],
      ['csr-e2e-nodeclient', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient'],
    ] as const) {
      await admin.resource(CLUSTER_ROLE_BINDINGS).create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers' }],
      } as never);
    }
  });

  after(async () => {
    for (const client of clients) client.close();
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const createCsr = async (as: HttpClient, name: string, signerName: string, usages: string[], subject: RequestOptions): Promise<void> => {
    await as.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).create({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { signerName, usages, request: Buffer.from(await newRequestPem(subject)).toString('base64') },
    });
  };
  const getCsr = (name: string): Promise<CsrObject> => admin.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).get(name);
  const issuedCertificate = async (name: string): Promise<X509Certificate> => {
    let pem = '';
    await waitFor(
      async () => {
        pem = Buffer.from((await getCsr(name)).status?.certificate ?? '', 'base64').toString('utf8');
        return pem !== '';
      },
      { timeoutMs: 15_000, intervalMs: 50, description: `CSR ${name} issued` },
    );
    const cert = new X509Certificate(pem);
    assert.ok(cert.verify(new X509Certificate(caPem).publicKey), 'signed by the cluster CA');
    return cert;
  };

  it("approves and issues a bootstrapper's node client CSR; leaves one with the wrong O pending", async () => {
    const signer = 'kubernetes.io/kube-apiserver-client-kubelet';
    await createCsr(bootstrapper, 'node-csr-wrong-o', signer, CLIENT_USAGES, { cn: `system:node:${NODE}`, o: ['system:bootstrappers'] });
    await createCsr(bootstrapper, 'node-csr-good', signer, CLIENT_USAGES, { cn: `system:node:${NODE}`, o: ['system:nodes'] });
    const cert = await issuedCertificate('node-csr-good');
    assert.equal(cert.subject, `O=system:nodes\nCN=system:node:${NODE}`);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    const good = await getCsr('node-csr-good');
    assert.equal(good.spec.username, 'system:bootstrap:abcdef');
    assert.deepEqual(
      good.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [['Approved', 'True', 'AutoApproved', 'Auto approving kubelet client certificate after SubjectAccessReview.']],
    );
    const wrong = await getCsr('node-csr-wrong-o');
    assert.deepEqual(wrong.status?.conditions ?? [], [], 'pending');
    assert.equal(wrong.status?.certificate, undefined);
    // What a person sees: kubectl's CONDITION column.
    const conditions = await newKubectl('1.32', kubeconfig).ok('get', 'csr', 'node-csr-good', 'node-csr-wrong-o', '--no-headers');
    assert.match(conditions, /node-csr-good .*system:bootstrap:abcdef.*Approved,Issued/);
    assert.match(conditions, /node-csr-wrong-o .*Pending/);
  });

  it("approves and issues a node's own kubelet serving CSR, not one in another node's name", async () => {
    const signer = 'kubernetes.io/kubelet-serving';
    await createCsr(node, 'serving-other', signer, SERVING_USAGES, { cn: 'system:node:someone-else', o: ['system:nodes'], dns: ['someone-else'] });
    await createCsr(node, 'serving-own', signer, SERVING_USAGES, { cn: `system:node:${NODE}`, o: ['system:nodes'], dns: [NODE], ip: ['127.0.0.2'] });
    const cert = await issuedCertificate('serving-own');
    assert.equal(cert.subjectAltName, `DNS:${NODE}, IP Address:127.0.0.2`);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.equal((await getCsr('serving-own')).status?.conditions?.[0]?.reason, 'AutoApproved');
    const other = await getCsr('serving-other');
    assert.deepEqual(other.status?.conditions ?? [], [], 'pending');
  });

  it('marks Failed an approved kube-apiserver-client CSR with a server usage instead of issuing it', async () => {
    await createCsr(admin, 'client-server-usage', 'kubernetes.io/kube-apiserver-client', ['client auth', 'server auth'], { cn: 'alice', o: ['devs'] });
    const csr = await getCsr('client-server-usage');
    await admin.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).updateSubresource('client-server-usage', 'approval', {
      ...csr,
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'E2E', message: 'approved by the test' }] },
    });
    let failed: { reason?: string; message?: string } | undefined;
    await waitFor(
      async () => {
        failed = (await getCsr('client-server-usage')).status?.conditions?.find((c) => c.type === 'Failed');
        return failed !== undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, description: 'CSR client-server-usage Failed' },
    );
    assert.equal(failed?.reason, 'SignerValidationFailure');
    assert.equal(failed?.message, 'invalid usage for client certificate: server auth');
    assert.equal((await getCsr('client-server-usage')).status?.certificate, undefined);
  });
});
