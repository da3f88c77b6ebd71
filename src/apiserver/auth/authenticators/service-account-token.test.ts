import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { KubeObject } from '../../../machinery/meta.js';
import { StatusError } from '../../../machinery/status.js';
import { signingKeyFromPem, verifyingKeysFromPem } from './service-account-keys.js';
import { InvalidTokenError, newServiceAccountTokenAuthenticator, ServiceAccountTokenIssuer, type ServiceAccountObjects } from './service-account-token.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

function rsaPem(): { key: string; pub: string } {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { key: pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), pub: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const ours = rsaPem();
const foreign = rsaPem();
const issuer = new ServiceAccountTokenIssuer(ISSUER, signingKeyFromPem(ours.key, 'sa.key'));

const obj = (namespace: string, name: string, uid: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { namespace, name, uid }, ...extra }) as KubeObject;

function objects(initial: KubeObject[]): ServiceAccountObjects & { remove(name: string): void } {
  const byName = new Map(initial.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]));
  const find = async (ns: string, name: string): Promise<KubeObject | undefined> => byName.get(`${ns}/${name}`);
  return { serviceAccount: find, pod: find, secret: find, node: async (name) => byName.get(`/${name}`), remove: (name) => void byName.delete(name) };
}

const sa = obj('team', 'builder', 'sa-uid');
const pod = obj('team', 'web-0', 'pod-uid');

function authenticator(store: ServiceAccountObjects, overrides: { audiences?: string[]; now?: () => Date; keys?: string[] } = {}) {
  return newServiceAccountTokenAuthenticator({
    issuers: [ISSUER],
    keys: (overrides.keys ?? [ours.pub]).flatMap((pem) => verifyingKeysFromPem(pem, 'sa.pub')),
    apiAudiences: overrides.audiences ?? [ISSUER],
    objects: store,
    ...(overrides.now !== undefined ? { now: overrides.now } : {}),
  });
}

/** assert.rejects predicate: a 401 whose cause explains why. */
const refusedBecause = (why: RegExp) => (e: unknown): boolean => {
  assert.ok(e instanceof StatusError && e.code === 401, `expected a 401, got ${String(e)}`);
  const cause = (e as Error).cause;
  assert.ok(cause instanceof InvalidTokenError, `cause: ${String(cause)}`);
  assert.match(cause.message, why);
  return true;
};

describe('service-account tokens', () => {
  it('carry upstream claims', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const { token, expiration } = await issuer.issue({ serviceAccount: sa, audiences: ['api'], expirationSeconds: 3600, binding: { pod, node: { name: 'n1', uid: 'node-uid' } }, now });
    assert.equal(expiration.toISOString(), '2026-01-01T01:00:00.000Z');
    const claims = decodeJwt(token);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.sub, 'system:serviceaccount:team:builder');
    assert.deepEqual(claims.aud, ['api']);
    assert.equal(claims.iat, now.getTime() / 1000);
    assert.equal(claims.nbf, claims.iat);
    assert.equal(claims.exp, (claims.iat ?? 0) + 3600);
    assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
    assert.deepEqual(claims['kubernetes.io'], {
      namespace: 'team',
      serviceaccount: { name: 'builder', uid: 'sa-uid' },
      node: { name: 'n1', uid: 'node-uid' },
      pod: { name: 'web-0', uid: 'pod-uid' },
    });
    const header = decodeProtectedHeader(token);
    assert.equal(header.alg, 'RS256');
    assert.match(String(header.kid), /^[A-Za-z0-9_-]{43}$/);
  });

  it('authenticate the service account with its groups and upstream extras', async () => {
    const { token } = await issuer.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600, binding: { pod, node: { name: 'n1', uid: 'node-uid' } } });
    const result = await authenticator(objects([sa, pod])).authenticateToken(token);
    const jti = String(decodeJwt(token).jti);
    assert.deepEqual(result, {
      user: {
        name: 'system:serviceaccount:team:builder',
        uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:team'],
        extra: {
          'authentication.kubernetes.io/pod-name': ['web-0'],
          'authentication.kubernetes.io/pod-uid': ['pod-uid'],
          'authentication.kubernetes.io/node-name': ['n1'],
          'authentication.kubernetes.io/node-uid': ['node-uid'],
          'authentication.kubernetes.io/credential-id': [`JTI=${jti}`],
        },
      },
      audiences: [ISSUER],
    });
  });

  it('check the audiences a caller asks for, and answer their intersection', async () => {
    const { token } = await issuer.issue({ serviceAccount: sa, audiences: ['a', 'b'], expirationSeconds: 600 });
    const auth = authenticator(objects([sa]));
    assert.deepEqual((await auth.authenticateToken(token, { audiences: ['b', 'c'] }))?.audiences, ['b']);
    await assert.rejects(async () => auth.authenticateToken(token), refusedBecause(/token audiences \["a","b"\] is invalid for the target audiences/));
  });

  it('are refused once expired (beyond a minute of skew)', async () => {
    const { token } = await issuer.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600, now: new Date(Date.now() - 700_000) });
    await assert.rejects(async () => authenticator(objects([sa])).authenticateToken(token), refusedBecause(/exp/));
  });

  it('are refused when signed by another key', async () => {
    const forged = new ServiceAccountTokenIssuer(ISSUER, signingKeyFromPem(foreign.key, 'other.key'));
    const { token } = await forged.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600 });
    await assert.rejects(async () => authenticator(objects([sa])).authenticateToken(token), refusedBecause(/could not be verified/));
  });

  it('verify with any of several keys', async () => {
    const other = new ServiceAccountTokenIssuer(ISSUER, signingKeyFromPem(foreign.key, 'other.key'));
    const { token } = await other.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600 });
    const result = await authenticator(objects([sa]), { keys: [ours.pub, foreign.key] }).authenticateToken(token);
    assert.equal(result?.user.name, 'system:serviceaccount:team:builder');
  });

  it('stop working when the service account is deleted, or recreated with another uid', async () => {
    const { token } = await issuer.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600 });
    const store = objects([sa]);
    const auth = authenticator(store);
    assert.ok(await auth.authenticateToken(token));
    store.remove('team/builder');
    await assert.rejects(async () => auth.authenticateToken(token), refusedBecause(/service account team\/builder has been deleted/));
    await assert.rejects(async () => authenticator(objects([obj('team', 'builder', 'new-uid')])).authenticateToken(token), refusedBecause(/service account UID \(new-uid\) does not match claim \(sa-uid\)/));
  });

  it('stop working when the bound pod is deleted', async () => {
    const { token } = await issuer.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600, binding: { pod } });
    await assert.rejects(async () => authenticator(objects([sa])).authenticateToken(token), refusedBecause(/pod team\/web-0 has been deleted/));
  });

  it('bound to a node stop working when the node is deleted', async () => {
    const node = obj('', 'n1', 'node-uid');
    const { token } = await issuer.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600, binding: { node: { name: 'n1', uid: 'node-uid' } } });
    assert.ok(await authenticator(objects([sa, node])).authenticateToken(token));
    await assert.rejects(async () => authenticator(objects([sa])).authenticateToken(token), refusedBecause(/node n1 has been deleted/));
  });

  it('leave tokens of other issuers and non-JWTs to other authenticators', async () => {
    const otherIssuer = new ServiceAccountTokenIssuer('https://elsewhere', signingKeyFromPem(ours.key, 'sa.key'));
    const { token } = await otherIssuer.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600 });
    const auth = authenticator(objects([sa]));
    assert.equal(await auth.authenticateToken(token), undefined);
    assert.equal(await auth.authenticateToken('not-a-jwt'), undefined);
    assert.equal(await auth.authenticateToken('a.b.c'), undefined);
  });

  it('refuse a malformed JWT of our issuer', async () => {
    const { token } = await issuer.issue({ serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 600 });
    const [h, p] = token.split('.');
    await assert.rejects(async () => authenticator(objects([sa])).authenticateToken(`${h}.${p}.AAAA`), refusedBecause(/could not be verified/));
  });
});

describe('service-account keys', () => {
  it('refuse files without keys and unsupported key types', () => {
    assert.throws(() => verifyingKeysFromPem('nothing', 'f'), /holds no PEM key/);
    assert.throws(() => signingKeyFromPem('nothing', 'f'), /is not a private key in PEM form/);
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    assert.throws(() => signingKeyFromPem(ed, 'f'), /unsupported service-account key type ed25519/);
  });

  it('sign ECDSA keys with ES256', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    assert.equal(signingKeyFromPem(ec, 'f').algorithm, 'ES256');
  });
});
