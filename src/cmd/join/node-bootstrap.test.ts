import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { caCertHash } from '../../machinery/bootstrap-token.js';
import { restConfigFromKubeconfig } from '../../client/rest/kubeconfig.js';
import type { RestConfig } from '../../client/rest/rest-config.js';
import { newFakeClient, type FakeClient } from '../../client/testing/fake-client.js';
import { describeCertificate } from '../pki/certificate-info.js';
import { newCertificateAuthority, type CertificateAuthority } from '../pki/certificates.js';
import { clusterInfoConfigMap } from './cluster-info.js';
import { bootstrapNode, parseTokenFlag, type NodeBootstrapOptions } from './node-bootstrap.js';
import { startClusterInfoServer, type ClusterInfoServer } from './testing/cluster-info-server.js';
import { startFakeSigner, type SignerVerdict } from './testing/fake-signer.js';

const TOKEN = 'abcdef.0123456789abcdef';

describe('the TLS bootstrap of a joining node', () => {
  let ca: CertificateAuthority;
  let server: ClusterInfoServer;
  let dir: string;
  before(async () => {
    ca = await newCertificateAuthority();
    server = await startClusterInfoServer(ca);
    server.answer = { status: 200, body: clusterInfoConfigMap({ server: server.url, caPem: ca.certPem }) };
    dir = await mkdtemp(join(tmpdir(), 'k8ts-join-'));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** `overrides.token` undefined: no --token. */
  async function bootstrap(dataDir: string, overrides: { [K in keyof NodeBootstrapOptions]?: NodeBootstrapOptions[K] | undefined } = {}, verdict: SignerVerdict = 'sign'): Promise<{ requested: readonly string[]; configs: RestConfig[]; client: FakeClient; lines: string[] }> {
    const client = newFakeClient();
    const signer = startFakeSigner(client, ca, () => verdict);
    const configs: RestConfig[] = [];
    const lines: string[] = [];
    try {
      const options: Record<string, unknown> = {
        dataDir,
        server: server.url,
        nodeName: 'n2',
        nodeIp: '127.0.0.2',
        token: TOKEN,
        caCertHashes: [caCertHash(ca.certPem)],
        unsafeSkipCaVerification: false,
        csrTimeoutMs: 2000,
        log: (l: string) => lines.push(l),
        newClient: (config: RestConfig) => {
          configs.push(config);
          return client;
        },
        ...overrides,
      };
      if (options['token'] === undefined) delete options['token'];
      const result = await bootstrapNode(options as unknown as NodeBootstrapOptions);
      return { requested: result.requested, configs, client, lines };
    } finally {
      signer.stop();
    }
  }

  it('gets a client certificate with the token, then a serving certificate as the node, and writes them with a kubeconfig', async () => {
    const dataDir = join(dir, 'first');
    const { requested, configs } = await bootstrap(dataDir);
    assert.equal(requested.length, 2);
    assert.equal(configs[0]?.token, TOKEN, 'the CSR for the client certificate is made with the bootstrap token');
    assert.equal(configs[0]?.ca, ca.certPem, 'and the CA is verified from then on');
    assert.equal(configs[1]?.token, undefined);
    assert.match(configs[1]?.clientCert ?? '', /BEGIN CERTIFICATE/, 'the serving CSR is made as the node');
    const pki = join(dataDir, 'pki');
    assert.equal(await readFile(join(pki, 'ca.crt'), 'utf8'), ca.certPem);
    const client = describeCertificate(await readFile(join(pki, 'kubelet.crt'), 'utf8'));
    assert.equal(client.commonName, 'system:node:n2');
    assert.deepEqual(client.organizations, ['system:nodes']);
    const serving = describeCertificate(await readFile(join(pki, 'kubelet-serving.crt'), 'utf8'));
    assert.deepEqual(serving.dnsNames, ['n2']);
    assert.deepEqual(serving.ipAddresses, ['127.0.0.2']);
    const rest = restConfigFromKubeconfig(join(pki, 'kubelet.kubeconfig'));
    assert.equal(rest.server, server.url);
    assert.equal(rest.ca, ca.certPem);
  });

  it('reuses good credentials on a restart: no discovery, no CSR, no token needed', async () => {
    const dataDir = join(dir, 'restart');
    await bootstrap(dataDir);
    const before = server.requests.length;
    const { requested, configs } = await bootstrap(dataDir, { token: undefined });
    assert.deepEqual(requested, []);
    assert.equal(configs.length, 0);
    assert.equal(server.requests.length, before);
  });

  it('asks only for a new serving certificate when the node IP changed', async () => {
    const dataDir = join(dir, 'new-ip');
    await bootstrap(dataDir);
    const { requested } = await bootstrap(dataDir, { nodeIp: '127.0.0.3' });
    assert.equal(requested.length, 1);
    assert.deepEqual(describeCertificate(await readFile(join(dataDir, 'pki', 'kubelet-serving.crt'), 'utf8')).ipAddresses, ['127.0.0.3']);
  });

  it('needs a token when it has no credentials, and refuses a malformed one', async () => {
    await assert.rejects(bootstrap(join(dir, 'no-token'), { token: undefined }), /no usable credentials in .* \(none yet\) and no --token/);
    assert.throws(() => parseTokenFlag('abc.def'), /the bootstrap token "abc.def" was not of the form "\[a-z0-9\]\{6\}\.\[a-z0-9\]\{16\}"/);
    await assert.rejects(bootstrap(join(dir, 'bad-token'), { token: 'ABCDEF.0123456789abcdef' }), /was not of the form/);
  });

  it('fails clearly when the CSR is denied, or the CA hash is wrong', async () => {
    await assert.rejects(bootstrap(join(dir, 'denied'), {}, 'deny'), /was denied: NotAllowed/);
    await assert.rejects(bootstrap(join(dir, 'wrong-hash'), { caCertHashes: [`sha256:${'1'.repeat(64)}`] }), /does not match --ca-cert-hash sha256:1111/);
  });
});
