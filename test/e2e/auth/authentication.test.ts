/**
 * Authentication end to end, with real kubectl against a real `k8ts server`:
 * each identity (admin certificate, a token from `kubectl create token`, a
 * static token, an OIDC ID token, anonymous) as `kubectl auth whoami` shows
 * it, and every bad credential refused with 401 while the server keeps
 * serving the others.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { startTestOidcIssuer, type TestOidcIssuer } from '../../../src/apiserver/auth/authenticators/testing/test-oidc-issuer.js';
import { issueClientCertificate, newCertificateAuthority } from '../../../src/cmd/pki/certificates.js';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { serverUrlOf } from '../testing/api-client.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** One HTTPS/1.1 request; `error` when the server closed the connection instead of answering. */
function https(url: string, options: { ca: string; method?: string; headers?: Record<string, string>; cert?: string; key?: string; body?: string }): Promise<HttpAnswer | 'error'> {
  return new Promise((resolve) => {
    const req = request(url, { method: options.method ?? 'GET', ca: options.ca, headers: options.headers, ...(options.cert !== undefined ? { cert: options.cert, key: options.key } : {}), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve('error'));
    });
    req.on('error', () => resolve('error'));
    req.end(options.body);
  });
}

/** `kubectl auth whoami`'s table as attribute → value. */
function whoami(output: string): Record<string, string> {
  const rows: Record<string, string> = {};
  for (const line of output.trim().split('\n').slice(1)) {
    const match = /^(.*?)\s{2,}(.*)$/.exec(line);
    if (match !== null) rows[match[1]!] = match[2]!;
  }
  return rows;
}

const UNAUTHORIZED = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}';

describe('authentication', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let dir: string;
  let oidc: TestOidcIssuer;
  let url: string;
  let ca: string;
  let admin: Kubectl;

  /** A kubeconfig of the cluster whose user presents `token`. */
  async function tokenKubeconfig(name: string, token: string): Promise<string> {
    const config = parse(await readFile(cluster.kubeconfig, 'utf8')) as { users: { name: string; user: Record<string, string> }[] };
    const path = join(dir, `${name}.kubeconfig`);
    await writeFile(path, stringify({ ...config, users: config.users.map((u) => ({ name: u.name, user: { token } })) }), { mode: 0o600 });
    return path;
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-authn-'));
    oidc = await startTestOidcIssuer();
    await writeFile(join(dir, 'tokens.csv'), 'static-secret-token,alice,alice-uid,"developers,qa"\n');
    await writeFile(join(dir, 'oidc-ca.crt'), oidc.caPem);
    cluster = await startCluster('authn', {
      serverArgs: [
        `--apiserver-arg=--token-auth-file=${join(dir, 'tokens.csv')}`,
        `--apiserver-arg=--oidc-issuer-url=${oidc.url}`,
        '--apiserver-arg=--oidc-client-id=k8ts',
        '--apiserver-arg=--oidc-groups-claim=groups',
        '--apiserver-arg=--oidc-groups-prefix=oidc:',
        `--apiserver-arg=--oidc-ca-file=${join(dir, 'oidc-ca.crt')}`,
      ],
    });
    url = serverUrlOf(cluster.kubeconfig);
    ca = await readFile(join(cluster.workDir, 'data', 'pki', 'ca.crt'), 'utf8');
    admin = newKubectl('1.32', cluster.kubeconfig);
  });

  after(async () => {
    await cluster?.stop();
    await oidc?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('shows the admin certificate as kubectl auth whoami (1.32 protobuf, 1.27 JSON v1beta1)', async () => {
    for (const version of ['1.32', '1.27'] as const) {
      const rows = whoami(await newKubectl(version, cluster.kubeconfig).ok('auth', 'whoami'));
      assert.equal(rows['Username'], 'kubernetes-admin');
      assert.equal(rows['Groups'], '[system:masters system:authenticated]');
      assert.match(rows['Extra: authentication.kubernetes.io/credential-id'] ?? '', /^\[X509SHA256=[0-9a-f]{64}\]$/);
    }
  });

  it('authenticates a token from kubectl create token until its service account is deleted', async () => {
    await admin.ok('create', 'serviceaccount', 'builder');
    const token = (await admin.ok('create', 'token', 'builder', '--duration=15m')).trim();
    const kubeconfig = await tokenKubeconfig('builder', token);
    for (const version of ['1.32', '1.27'] as const) {
      const rows = whoami(await newKubectl(version, kubeconfig).ok('auth', 'whoami'));
      assert.equal(rows['Username'], 'system:serviceaccount:default:builder');
      assert.equal(rows['Groups'], '[system:serviceaccounts system:serviceaccounts:default system:authenticated]');
      assert.match(rows['UID'] ?? '', /^[0-9a-f-]{36}$/);
      assert.match(rows['Extra: authentication.kubernetes.io/credential-id'] ?? '', /^\[JTI=[0-9a-f-]{36}\]$/);
    }
    // --validate=false: kubectl's client-side check of a kind without PATCH lists CRDs, which k8ts does not serve yet.
    const review = JSON.parse(
      await withStdin(admin, cluster.kubeconfig, JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } })).ok('create', '--validate=false', '-f', '-', '-o', 'json'),
    ) as { status: { authenticated?: boolean; user?: { username?: string }; audiences?: string[] } };
    assert.equal(review.status.authenticated, true);
    assert.equal(review.status.user?.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(review.status.audiences, ['https://kubernetes.default.svc.cluster.local']);

    await admin.ok('delete', 'serviceaccount', 'builder');
    // The watch cache sees the deletion a moment later: poll, with a deadline.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await https(`${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        ca,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
      });
      assert.notEqual(answer, 'error');
      if (answer !== 'error' && answer.status === 401) {
        assert.equal(answer.body.trim(), UNAUTHORIZED);
        break;
      }
      assert.ok(Date.now() < deadline, 'the token of a deleted service account still works');
      await new Promise((r) => setTimeout(r, 200));
    }
    const refused = await newKubectl('1.32', kubeconfig)('auth', 'whoami');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized/);
  });

  it('binds a token to a pod and names it in the user', async () => {
    await admin.ok('create', 'serviceaccount', 'runner');
    await withStdin(admin, cluster.kubeconfig, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'job' }, spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'busybox' }] } })).ok('create', '-f', '-');
    const token = (await admin.ok('create', 'token', 'runner', '--bound-object-kind=Pod', '--bound-object-name=job')).trim();
    const rows = whoami(await newKubectl('1.32', await tokenKubeconfig('runner', token)).ok('auth', 'whoami'));
    assert.equal(rows['Extra: authentication.kubernetes.io/pod-name'], '[job]');
    const wrong = await admin('create', 'token', 'builder-missing', '--bound-object-kind=Pod', '--bound-object-name=job');
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /serviceaccounts "builder-missing" not found/);
  });

  it('refuses a TokenRequest shorter than 10 minutes', async () => {
    await admin.ok('create', 'serviceaccount', 'short');
    const r = await admin('create', 'token', 'short', '--duration=5m');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/);
  });

  it('authenticates a static token from --token-auth-file, and refuses an unknown one', async () => {
    const rows = whoami(await newKubectl('1.32', await tokenKubeconfig('alice', 'static-secret-token')).ok('auth', 'whoami'));
    assert.equal(rows['Username'], 'alice');
    assert.equal(rows['UID'], 'alice-uid');
    assert.equal(rows['Groups'], '[developers qa system:authenticated]');
    const refused = await newKubectl('1.32', await tokenKubeconfig('nobody', 'not-a-known-token'))('auth', 'whoami');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized/);
  });

  it('authenticates an OIDC ID token from the issuer, and refuses expired and foreign-signed ones', async () => {
    const token = await oidc.sign({ sub: 'jane', aud: 'k8ts', groups: ['admins'] });
    const rows = whoami(await newKubectl('1.32', await tokenKubeconfig('jane', token)).ok('auth', 'whoami'));
    assert.equal(rows['Username'], `${oidc.url}#jane`);
    assert.equal(rows['Groups'], '[oidc:admins system:authenticated]');
    const expired = await oidc.sign({ sub: 'jane', aud: 'k8ts', exp: Math.floor(Date.now() / 1000) - 600 });
    const wrongAudience = await oidc.sign({ sub: 'jane', aud: 'someone-else' });
    for (const bad of [expired, wrongAudience, `${token.slice(0, token.lastIndexOf('.'))}.c2lnbmF0dXJl`]) {
      const answer = await https(`${url}/api/v1/namespaces`, { ca, headers: { authorization: `Bearer ${bad}` } });
      assert.ok(answer !== 'error' && answer.status === 401, `expected 401, got ${JSON.stringify(answer)}`);
    }
  });

  it('lets an anonymous request reach /version, and leaves the rest to RBAC, which refuses it (403)', async () => {
    const version = await https(`${url}/version`, { ca });
    assert.ok(version !== 'error' && version.status === 200);
    const list = await https(`${url}/api/v1/namespaces`, { ca });
    assert.ok(list !== 'error' && list.status === 403, JSON.stringify(list));
    assert.match(list.body, /User \\"system:anonymous\\" cannot list resource \\"namespaces\\"/);
    const whoamiAnonymous = await https(`${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { ca, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.ok(whoamiAnonymous !== 'error' && whoamiAnonymous.status === 403);
    const badBearer = await https(`${url}/version`, { ca, headers: { authorization: 'Bearer malformed.jwt.token' } });
    assert.ok(badBearer !== 'error' && badBearer.status === 401, 'an invalid bearer token is 401 even where anonymous may go');
  });

  it('refuses a client certificate from another CA with 401', async () => {
    const otherCa = await newCertificateAuthority({ commonName: 'not-the-cluster-ca' });
    const cert = await issueClientCertificate(otherCa, { commonName: 'kubernetes-admin', organizations: ['system:masters'] });
    const answer = await https(`${url}/api/v1/namespaces`, { ca, cert: cert.certPem, key: cert.keyPem });
    assert.ok(answer !== 'error' && answer.status === 401, `expected 401, got ${JSON.stringify(answer)}`);
    assert.equal(answer.body.trim(), UNAUTHORIZED);
  });

  it('refuses oversized headers (431 or a closed connection) and keeps serving others', async () => {
    const answer = await https(`${url}/version`, { ca, headers: { 'x-padding': 'a'.repeat(256 * 1024) } });
    assert.ok(answer === 'error' || answer.status === 431, `expected 431 or a closed connection, got ${answer === 'error' ? answer : answer.status}`);
    const rows = whoami(await admin.ok('auth', 'whoami'));
    assert.equal(rows['Username'], 'kubernetes-admin');
  });
});
