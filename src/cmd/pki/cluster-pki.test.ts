import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { describeCertificate, EXTENDED_KEY_USAGE } from './certificate-info.js';
import { issueClientCertificate, newCertificateAuthority } from './certificates.js';
import { ensureClusterPki, type ClusterIdentity, type ClusterPkiOptions } from './cluster-pki.js';
import { renderKubeconfig } from './kubeconfig.js';

const execFileAsync = promisify(execFile);
const DAY_MS = 24 * 60 * 60 * 1000;

const roots: string[] = [];
after(async () => {
  await Promise.all(roots.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-pki-'));
  roots.push(dir);
  return join(dir, 'data');
}

function baseOptions(dataDir: string): ClusterPkiOptions {
  return {
    dataDir,
    serverUrl: 'https://127.0.0.1:6443',
    nodeIps: ['127.0.0.1'],
    hostName: 'host-a',
    serviceClusterIp: '127.96.0.1',
    nodeName: 'node-a',
  };
}

/** Every file under the data directory, relative path → contents. */
async function snapshot(dataDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(dataDir.length + 1), await readFile(path, 'utf8'));
  }
  return files;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}

const relative = (dataDir: string, paths: readonly string[]): string[] => paths.map((p) => p.slice(dataDir.length + 1)).sort();

const LEAF_FILES = ['apiserver', 'admin', 'controller-manager', 'scheduler', 'proxy', 'dns', 'kubelet', 'kubelet-serving', 'apiserver-kubelet-client'];
const ALL_FILES = [
  'admin.kubeconfig',
  'pki/ca.crt',
  'pki/ca.key',
  ...LEAF_FILES.flatMap((name) => [`pki/${name}.crt`, `pki/${name}.key`]),
  ...['controller-manager', 'scheduler', 'proxy', 'dns', 'kubelet'].map((name) => `pki/${name}.kubeconfig`),
  'pki/sa.key',
  'pki/sa.pub',
].sort();

interface KubeconfigShape {
  'current-context': string;
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
}

async function readKubeconfig(path: string): Promise<KubeconfigShape> {
  return parse(await readFile(path, 'utf8')) as KubeconfigShape;
}

const EXPECTED_IDENTITIES: Record<ClusterIdentity, { cn: string; o: string[]; context: string }> = {
  admin: { cn: 'kubernetes-admin', o: ['system:masters'], context: 'k8ts' },
  controllerManager: { cn: 'system:kube-controller-manager', o: [], context: 'system:kube-controller-manager@k8ts' },
  scheduler: { cn: 'system:kube-scheduler', o: [], context: 'system:kube-scheduler@k8ts' },
  proxy: { cn: 'system:kube-proxy', o: [], context: 'system:kube-proxy@k8ts' },
  dns: { cn: 'system:coredns', o: [], context: 'system:coredns@k8ts' },
  kubelet: { cn: 'system:node:node-a', o: ['system:nodes'], context: 'system:node:node-a@k8ts' },
};

describe('ensureClusterPki on first start', () => {
  let dataDir: string;
  let pki: Awaited<ReturnType<typeof ensureClusterPki>>;
  before(async () => {
    dataDir = await newDataDir();
    pki = await ensureClusterPki({
      ...baseOptions(dataDir),
      nodeIps: ['127.0.0.1', '127.0.0.2'],
      hostName: 'Host-A',
      serverUrl: 'https://[::1]:6443',
      extraSans: ['k8ts.example.com', '10.1.2.3', '127.0.0.2'],
    });
  });

  it('issues the kubelet serving certificate for the node and the API server\'s kubelet client certificate', async () => {
    const serving = describeCertificate(await readFile(pki.kubeletServingCert, 'utf8'));
    assert.equal(serving.commonName, 'system:node:node-a');
    assert.ok(serving.extendedKeyUsages.includes(EXTENDED_KEY_USAGE.serverAuth));
    assert.deepEqual(serving.dnsNames, ['node-a', 'localhost']);
    assert.deepEqual(serving.ipAddresses, ['127.0.0.1', '127.0.0.2', '::1']);
    const client = describeCertificate(await readFile(pki.apiserverKubeletClient.cert, 'utf8'));
    assert.equal(client.commonName, 'kube-apiserver-kubelet-client');
    assert.deepEqual(client.organizations, ['system:masters']);
    assert.ok(client.extendedKeyUsages.includes(EXTENDED_KEY_USAGE.clientAuth));
    assert.equal(pki.apiserverKubeletClient.key, join(dataDir, 'pki', 'apiserver-kubelet-client.key'));
  });

  it('creates exactly the documented files and returns their paths', async () => {
    assert.deepEqual([...(await snapshot(dataDir)).keys()].sort(), ALL_FILES);
    assert.deepEqual(relative(dataDir, pki.written), ALL_FILES);
    assert.equal(pki.caCert, join(dataDir, 'pki', 'ca.crt'));
    assert.equal(pki.servingCert, join(dataDir, 'pki', 'apiserver.crt'));
    assert.equal(pki.servingKey, join(dataDir, 'pki', 'apiserver.key'));
    assert.equal(pki.adminKubeconfig, join(dataDir, 'admin.kubeconfig'));
    assert.equal(pki.kubeconfigs.admin, pki.adminKubeconfig);
    assert.equal(pki.kubeconfigs.controllerManager, join(dataDir, 'pki', 'controller-manager.kubeconfig'));
    assert.equal(pki.clientCertificates.kubelet.cert, join(dataDir, 'pki', 'kubelet.crt'));
  });

  it('makes keys and kubeconfigs 0600, certificates 0644 and pki/ 0700', async () => {
    assert.equal((await stat(pki.pkiDir)).mode & 0o777, 0o700);
    for (const name of ALL_FILES) {
      const mode = (await stat(join(dataDir, name))).mode & 0o777;
      assert.equal(mode, name.endsWith('.crt') || name.endsWith('.pub') ? 0o644 : 0o600, `${name} has mode ${mode.toString(8)}`);
    }
  });

  it('makes a CA that verifies every leaf', async () => {
    const ca = new X509Certificate(await readFile(pki.caCert));
    assert.equal(ca.ca, true);
    assert.equal(ca.subject, 'CN=k8ts-ca');
    for (const name of LEAF_FILES) {
      const leaf = new X509Certificate(await readFile(join(pki.pkiDir, `${name}.crt`)));
      assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), `${name}.crt is signed by the CA`);
    }
  });

  it('gives the serving certificate every SAN the cluster needs', async () => {
    const info = describeCertificate(await readFile(pki.servingCert, 'utf8'));
    assert.equal(info.commonName, 'kube-apiserver');
    assert.deepEqual(info.extendedKeyUsages, [EXTENDED_KEY_USAGE.serverAuth]);
    assert.deepEqual(info.dnsNames, [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
      'Host-A',
      'k8ts.example.com',
    ]);
    assert.deepEqual(info.ipAddresses, ['127.0.0.1', '::1', '127.0.0.2', '127.96.0.1', '10.1.2.3']);
  });

  it('gives each identity its user name, groups, clientAuth and a kubeconfig', async () => {
    const caData = Buffer.from(await readFile(pki.caCert)).toString('base64');
    for (const [identity, expected] of Object.entries(EXPECTED_IDENTITIES) as [ClusterIdentity, (typeof EXPECTED_IDENTITIES)[ClusterIdentity]][]) {
      const paths = pki.clientCertificates[identity];
      const certPem = await readFile(paths.cert, 'utf8');
      const info = describeCertificate(certPem);
      assert.equal(info.commonName, expected.cn);
      assert.deepEqual(info.organizations, expected.o);
      assert.deepEqual(info.extendedKeyUsages, [EXTENDED_KEY_USAGE.clientAuth]);
      const config = await readKubeconfig(pki.kubeconfigs[identity]);
      assert.equal(config['current-context'], expected.context);
      assert.deepEqual(config.contexts, [{ name: expected.context, context: { cluster: 'k8ts', user: expected.cn } }]);
      assert.equal(config.clusters[0]?.cluster.server, 'https://[::1]:6443');
      assert.equal(config.clusters[0]?.cluster['certificate-authority-data'], caData);
      assert.equal(config.users[0]?.user['client-certificate-data'], Buffer.from(certPem).toString('base64'));
      assert.equal(config.users[0]?.user['client-key-data'], Buffer.from(await readFile(paths.key)).toString('base64'));
    }
  });
});

describe('ensureClusterPki on later starts', () => {
  it('keeps the CA and every certificate byte for byte', async () => {
    const dataDir = await newDataDir();
    await ensureClusterPki(baseOptions(dataDir));
    const first = await snapshot(dataDir);
    const again = await ensureClusterPki(baseOptions(dataDir));
    assert.deepEqual(again.written, []);
    assert.deepEqual(changed(first, await snapshot(dataDir)), []);
  });

  it('reissues only the serving certificates when a SAN is missing', async () => {
    const dataDir = await newDataDir();
    await ensureClusterPki(baseOptions(dataDir));
    const first = await snapshot(dataDir);
    const pki = await ensureClusterPki({ ...baseOptions(dataDir), nodeIps: ['127.0.0.1', '127.0.0.5'] });
    const servingFiles = ['pki/apiserver.crt', 'pki/apiserver.key', 'pki/kubelet-serving.crt', 'pki/kubelet-serving.key'];
    assert.deepEqual(relative(dataDir, pki.written), servingFiles);
    assert.deepEqual(changed(first, await snapshot(dataDir)), servingFiles);
    assert.equal(new X509Certificate(await readFile(pki.kubeletServingCert)).checkIP('127.0.0.5'), '127.0.0.5');
    const serving = new X509Certificate(await readFile(pki.servingCert));
    const ca = new X509Certificate(await readFile(pki.caCert));
    assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
    assert.equal(serving.checkIP('127.0.0.5'), '127.0.0.5');
    assert.equal((await stat(pki.servingKey)).mode & 0o777, 0o600);
  });

  it('keeps a serving certificate that has more SANs than now needed', async () => {
    const dataDir = await newDataDir();
    await ensureClusterPki({ ...baseOptions(dataDir), nodeIps: ['127.0.0.1', '127.0.0.5'] });
    const pki = await ensureClusterPki(baseOptions(dataDir));
    assert.deepEqual(pki.written, []);
  });

  it('rewrites only the kubeconfigs when the server URL changes', async () => {
    const dataDir = await newDataDir();
    await ensureClusterPki(baseOptions(dataDir));
    const pki = await ensureClusterPki({ ...baseOptions(dataDir), serverUrl: 'https://127.0.0.1:7443' });
    assert.deepEqual(relative(dataDir, pki.written), [
      'admin.kubeconfig',
      'pki/controller-manager.kubeconfig',
      'pki/dns.kubeconfig',
      'pki/kubelet.kubeconfig',
      'pki/proxy.kubeconfig',
      'pki/scheduler.kubeconfig',
    ]);
    assert.equal((await readKubeconfig(pki.adminKubeconfig)).clusters[0]?.cluster.server, 'https://127.0.0.1:7443');
  });

  it('reissues only the kubelet identity when the node name changes', async () => {
    const dataDir = await newDataDir();
    await ensureClusterPki(baseOptions(dataDir));
    const pki = await ensureClusterPki({ ...baseOptions(dataDir), nodeName: 'node-b' });
    assert.deepEqual(relative(dataDir, pki.written), [
      'pki/kubelet-serving.crt',
      'pki/kubelet-serving.key',
      'pki/kubelet.crt',
      'pki/kubelet.key',
      'pki/kubelet.kubeconfig',
    ]);
    assert.equal(describeCertificate(await readFile(pki.clientCertificates.kubelet.cert, 'utf8')).commonName, 'system:node:node-b');
    const serving = describeCertificate(await readFile(pki.kubeletServingCert, 'utf8'));
    assert.equal(serving.commonName, 'system:node:node-b');
    assert.ok(serving.dnsNames.includes('node-b'));
  });

  it('reissues a pair whose key is missing or does not match, or that another CA signed', async () => {
    const dataDir = await newDataDir();
    const pki = await ensureClusterPki(baseOptions(dataDir));
    await rm(pki.clientCertificates.proxy.key);
    await writeFile(pki.clientCertificates.scheduler.key, await readFile(pki.clientCertificates.admin.key));
    const stranger = await issueClientCertificate(await newCertificateAuthority(), { commonName: 'system:kube-controller-manager' });
    await writeFile(pki.clientCertificates.controllerManager.cert, stranger.certPem);
    await writeFile(pki.clientCertificates.controllerManager.key, stranger.keyPem);
    const again = await ensureClusterPki(baseOptions(dataDir));
    assert.deepEqual(
      relative(dataDir, again.written),
      ['controller-manager', 'proxy', 'scheduler'].flatMap((n) => [`pki/${n}.crt`, `pki/${n}.key`, `pki/${n}.kubeconfig`]).sort(),
    );
    assert.equal(describeCertificate(await readFile(again.clientCertificates.controllerManager.cert, 'utf8')).commonName, 'system:kube-controller-manager');
  });

  it('renews leaves that expire within 30 days, keeping the CA', async () => {
    const dataDir = await newDataDir();
    await ensureClusterPki(baseOptions(dataDir));
    const first = await snapshot(dataDir);
    const later = new Date(Date.now() + 340 * DAY_MS);
    const pki = await ensureClusterPki({ ...baseOptions(dataDir), now: later });
    const replaced = changed(first, await snapshot(dataDir));
    // The service-account key never expires and is kept.
    assert.deepEqual(replaced, ALL_FILES.filter((name) => !name.startsWith('pki/ca.') && !name.startsWith('pki/sa.')));
    assert.deepEqual(relative(dataDir, pki.written), replaced);
    const notAfter = describeCertificate(await readFile(pki.servingCert, 'utf8')).notAfter.getTime();
    assert.ok(notAfter > later.getTime() + 364 * DAY_MS);
  });

  it('restores 0600 on a key or kubeconfig left readable, without rewriting it', async () => {
    const dataDir = await newDataDir();
    const pki = await ensureClusterPki(baseOptions(dataDir));
    await chmod(pki.caKey, 0o644);
    await chmod(pki.servingKey, 0o640);
    await chmod(pki.kubeconfigs.scheduler, 0o666);
    const again = await ensureClusterPki(baseOptions(dataDir));
    assert.deepEqual(again.written, []);
    for (const path of [pki.caKey, pki.servingKey, pki.kubeconfigs.scheduler]) {
      assert.equal((await stat(path)).mode & 0o777, 0o600, path);
    }
  });

  it('refuses a CA certificate without its key, and writes nothing', async () => {
    const dataDir = await newDataDir();
    const pki = await ensureClusterPki(baseOptions(dataDir));
    await rm(pki.caKey);
    await rm(pki.servingCert);
    await assert.rejects(ensureClusterPki(baseOptions(dataDir)), /ca\.crt exists but its key .*ca\.key does not/);
    await assert.rejects(stat(pki.servingCert), { code: 'ENOENT' });
  });

  it('refuses a CA certificate that does not parse', async () => {
    const dataDir = await newDataDir();
    const pki = await ensureClusterPki(baseOptions(dataDir));
    await writeFile(pki.caCert, 'garbage');
    await assert.rejects(ensureClusterPki(baseOptions(dataDir)), /loading the CA from .*ca\.crt/);
  });

  it('finishes a first start that stopped after writing ca.key', async () => {
    const dataDir = await newDataDir();
    const pki = await ensureClusterPki(baseOptions(dataDir));
    const oldKey = await readFile(pki.caKey, 'utf8');
    await rm(pki.caCert);
    const again = await ensureClusterPki(baseOptions(dataDir));
    assert.notEqual(await readFile(again.caKey, 'utf8'), oldKey);
    // The service-account key does not depend on the CA and is kept.
    assert.deepEqual(relative(dataDir, again.written), ALL_FILES.filter((name) => !name.startsWith('pki/sa.')));
  });
});

/** A tiny stand-in for the API server: /version, and /whoami answering what the client certificate says. */
interface WhoAmI {
  CN?: string | string[];
  O?: string | string[];
  authorized: boolean;
  authorizationError?: string;
}

describe('the PKI over TLS: node and kubectl', () => {
  let dataDir: string;
  let home: string;
  let port: number;
  let pki: Awaited<ReturnType<typeof ensureClusterPki>>;
  let server: http2.Http2SecureServer;
  const sessions = new Set<http2.ServerHttp2Session>();
  const sockets = new Set<TLSSocket>();
  const version = { minor: '33' };

  before(async () => {
    dataDir = await newDataDir();
    home = join(dataDir, '..', 'home');
    await mkdir(home, { recursive: true });
    await ensureClusterPki(baseOptions(dataDir));
    server = http2.createSecureServer(
      {
        allowHTTP1: true,
        requestCert: true,
        rejectUnauthorized: false,
        ca: await readFile(join(dataDir, 'pki', 'ca.crt')),
        cert: await readFile(join(dataDir, 'pki', 'apiserver.crt')),
        key: await readFile(join(dataDir, 'pki', 'apiserver.key')),
      },
      (req, res) => {
        const path = (req.url ?? '/').split('?')[0];
        res.setHeader('content-type', 'application/json');
        if (path === '/version') {
          const minor = version.minor;
          res.end(JSON.stringify({ major: '1', minor, gitVersion: `v1.${minor}.0-k8ts.0` }));
        } else if (path === '/whoami') {
          const socket = req.socket as TLSSocket;
          // @types/node says string, but node gives an array when an attribute repeats (several O).
          const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
          const { CN, O } = subject ?? {};
          const body: WhoAmI = { authorized: socket.authorized };
          if (CN !== undefined) body.CN = CN;
          if (O !== undefined) body.O = O;
          if (socket.authorizationError) body.authorizationError = String(socket.authorizationError);
          res.end(JSON.stringify(body));
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
        }
      },
    );
    server.on('session', (session: http2.ServerHttp2Session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    // A later start with the real port: only the kubeconfigs change.
    pki = await ensureClusterPki({ ...baseOptions(dataDir), serverUrl: `https://127.0.0.1:${port}` });
    assert.equal(pki.written.length, 6);
  });

  after(async () => {
    const closed = once(server, 'close');
    server.close();
    for (const session of sessions) session.destroy();
    for (const socket of sockets) socket.destroy();
    await closed;
  });

  async function nodeGet(path: string, client: { cert?: string | Buffer; key?: string | Buffer; servername?: string }): Promise<string> {
    const ca = await readFile(pki.caCert);
    return new Promise<string>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path, ca, agent: false, ...client }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
  }

  /** Runs kubectl with a fresh HOME each time (the gcloud kubectl dispatcher caches what it learns there). */
  async function kubectl(args: string[]): Promise<string> {
    const { stdout } = await execFileAsync('kubectl', ['--request-timeout=20s', ...args], {
      env: { ...process.env, HOME: await mkdtemp(join(home, 'run-')), KUBECONFIG: '' },
      timeout: 60_000,
    });
    return stdout;
  }

  it('node verifies the serving certificate for 127.0.0.1 and kubernetes.default.svc, and the server reads CN/O', async () => {
    const cert = await readFile(pki.clientCertificates.admin.cert);
    const key = await readFile(pki.clientCertificates.admin.key);
    const byIp: unknown = JSON.parse(await nodeGet('/whoami', { cert, key }));
    assert.deepEqual(byIp, { authorized: true, CN: 'kubernetes-admin', O: 'system:masters' });
    const byName: unknown = JSON.parse(await nodeGet('/whoami', { cert, key, servername: 'kubernetes.default.svc' }));
    assert.deepEqual(byName, byIp);
  });

  it('node refuses the server under a name the serving certificate lacks', async () => {
    await assert.rejects(nodeGet('/whoami', { servername: 'example.com' }), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('the server tells a certificate from another CA (and no certificate) from its own', async () => {
    const stranger = await issueClientCertificate(await newCertificateAuthority(), { commonName: 'kubernetes-admin', organizations: ['system:masters'] });
    const forged = JSON.parse(await nodeGet('/whoami', { cert: stranger.certPem, key: stranger.keyPem })) as WhoAmI;
    assert.equal(forged.authorized, false);
    assert.ok(forged.authorizationError);
    const anonymous = JSON.parse(await nodeGet('/whoami', {})) as WhoAmI;
    assert.equal(anonymous.authorized, false);
    assert.equal(anonymous.CN, undefined);
  });

  it('kubectl connects with admin.kubeconfig, verifies the server and presents the admin certificate', async () => {
    const whoami: unknown = JSON.parse(await kubectl(['--kubeconfig', pki.adminKubeconfig, 'get', '--raw', '/whoami']));
    assert.deepEqual(whoami, { authorized: true, CN: 'kubernetes-admin', O: 'system:masters' });
  });

  it('kubectl version reads the server version (1.32 and 1.33)', async (t) => {
    for (const minor of ['32', '33']) {
      version.minor = minor;
      const out = JSON.parse(await kubectl(['--kubeconfig', pki.adminKubeconfig, 'version', '-o', 'json'])) as {
        clientVersion: { gitVersion: string };
        serverVersion: { gitVersion: string; minor: string };
      };
      assert.equal(out.serverVersion.gitVersion, `v1.${minor}.0-k8ts.0`);
      t.diagnostic(`server v1.${minor}: kubectl ${out.clientVersion.gitVersion}`);
    }
  });

  it('kubectl accepts the serving certificate under localhost and kubernetes.default.svc', async () => {
    const viaLocalhost: unknown = JSON.parse(
      await kubectl(['--kubeconfig', pki.adminKubeconfig, '--server', `https://localhost:${port}`, 'get', '--raw', '/whoami']),
    );
    assert.deepEqual(viaLocalhost, { authorized: true, CN: 'kubernetes-admin', O: 'system:masters' });
    const viaServiceName: unknown = JSON.parse(
      await kubectl(['--kubeconfig', pki.adminKubeconfig, '--tls-server-name', 'kubernetes.default.svc', 'get', '--raw', '/whoami']),
    );
    assert.deepEqual(viaServiceName, viaLocalhost);
  });

  it('kubectl connects as each component identity', async () => {
    for (const [identity, expected] of Object.entries(EXPECTED_IDENTITIES) as [ClusterIdentity, (typeof EXPECTED_IDENTITIES)[ClusterIdentity]][]) {
      const whoami = JSON.parse(await kubectl(['--kubeconfig', pki.kubeconfigs[identity], 'get', '--raw', '/whoami'])) as WhoAmI;
      assert.equal(whoami.authorized, true, identity);
      assert.equal(whoami.CN, expected.cn, identity);
      assert.deepEqual(whoami.O === undefined ? [] : [whoami.O].flat(), expected.o, identity);
    }
  });

  it('kubectl refuses the server when the kubeconfig trusts another CA', async () => {
    const other = await newCertificateAuthority();
    const path = join(home, 'wrong-ca.kubeconfig');
    await writeFile(
      path,
      renderKubeconfig({
        serverUrl: `https://127.0.0.1:${port}`,
        caCertPem: other.certPem,
        clientCertPem: await readFile(pki.clientCertificates.admin.cert, 'utf8'),
        clientKeyPem: await readFile(pki.clientCertificates.admin.key, 'utf8'),
        userName: 'kubernetes-admin',
      }),
      { mode: 0o600 },
    );
    await assert.rejects(kubectl(['--kubeconfig', path, 'get', '--raw', '/whoami']), (e: unknown) => {
      assert.ok(e instanceof Error && 'stderr' in e && typeof e.stderr === 'string');
      assert.match(e.stderr, /x509: certificate signed by unknown authority/);
      return true;
    });
  });
});
