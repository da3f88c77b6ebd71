import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../../../machinery/meta.js';
import { bootstrapTokenSecret } from '../../../machinery/bootstrap-token.js';
import { audienceAgnostic } from './audience-agnostic.js';
import { prepareAuthentication } from './build.js';
import { fakeRequest } from './testing/fake-request.js';

const dir = mkdtempSync(join(tmpdir(), 'authn-build-'));
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const noObjects = { getCached: async (): Promise<KubeObject | undefined> => undefined };

describe('authentication from flags', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('stops at start on a bad token file, key file or OIDC CA file, naming it', () => {
    assert.throws(() => prepareAuthentication({ tokenAuthFile: file('bad.csv', 'a,b\n') }), /bad.csv' must have at least 3 columns/);
    assert.throws(() => prepareAuthentication({ tokenAuthFile: join(dir, 'missing.csv') }), /reading the token file .*missing.csv/);
    assert.throws(() => prepareAuthentication({ serviceAccountSigningKeyFile: file('bad.key', 'x') }), /bad.key is not a private key in PEM form/);
    assert.throws(() => prepareAuthentication({ serviceAccountKeyFiles: [file('bad.pub', 'x')] }), /bad.pub holds no PEM key/);
    assert.throws(() => prepareAuthentication({ oidc: { issuerUrl: 'https://i', clientId: 'c', caFile: join(dir, 'nope.crt') } }), /nope.crt \(--oidc-ca-file\) failed/);
    assert.throws(() => prepareAuthentication({ oidc: { issuerUrl: 'http://i', clientId: 'c' } }), /URL scheme must be https/);
  });

  it('defaults the issuer and audiences as upstream, and issues tokens only with a signing key', () => {
    const none = prepareAuthentication();
    assert.deepEqual(none.apiAudiences, ['https://kubernetes.default.svc.cluster.local']);
    assert.equal(none.serviceAccountTokens, undefined);
    const key = file('sa.key', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
    const withKey = prepareAuthentication({ serviceAccountSigningKeyFile: key, serviceAccountIssuers: ['https://issuer'], apiAudiences: ['api'] });
    assert.deepEqual(withKey.apiAudiences, ['api']);
    assert.ok(withKey.serviceAccountTokens !== undefined);
  });

  it('builds the token chain: a static token authenticates, valid for the API audiences', async () => {
    const auth = prepareAuthentication({ tokenAuthFile: file('ok.csv', 'tok,alice,1\n') }).build(noObjects);
    const { user } = await auth.authenticate(fakeRequest({ headers: { authorization: 'Bearer tok' } }));
    assert.deepEqual(user, { name: 'alice', uid: '1', groups: ['system:authenticated'] });
    assert.deepEqual((await auth.tokens.authenticateToken('tok'))?.audiences, ['https://kubernetes.default.svc.cluster.local']);
  });

  it('authenticates bootstrap tokens from kube-system Secrets only with --enable-bootstrap-token-auth', async () => {
    const token = { id: 'abcdef', secret: '0123456789abcdef' };
    const reads: string[] = [];
    const objects = {
      getCached: async (group: string, version: string, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> => {
        reads.push(`${group}/${version}/${resource} ${namespace}/${name}`);
        return bootstrapTokenSecret({ token }) as unknown as KubeObject;
      },
    };
    const request = () => fakeRequest({ headers: { authorization: 'Bearer abcdef.0123456789abcdef' } });
    const { user } = await prepareAuthentication({ bootstrapTokenAuth: true }).build(objects).authenticate(request());
    assert.deepEqual(user, { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:k8ts:default-node-token', 'system:authenticated'] });
    assert.deepEqual(reads, ['/v1/secrets kube-system/bootstrap-token-abcdef']);
    // Without the flag nobody knows the token: with no token authenticator at all it is ignored (anonymous), with others it is refused.
    assert.equal((await prepareAuthentication().build(objects).authenticate(request())).user.name, 'system:anonymous');
    await assert.rejects(async () => prepareAuthentication({ tokenAuthFile: file('other.csv', 'tok,alice,1\n') }).build(objects).authenticate(request()), /invalid bearer token/);
  });

  it('turns anonymous off with --anonymous-auth=false', async () => {
    await assert.rejects(async () => prepareAuthentication({ anonymous: false }).build(noObjects).authenticate(fakeRequest()), /Unauthorized/);
  });
});

describe('audience-agnostic tokens', () => {
  const inner = { authenticateToken: (t: string) => (t === 'ok' ? { user: { name: 'u', groups: [] } } : undefined) };
  it('are valid for the API audiences only', async () => {
    const auth = audienceAgnostic(['api', 'other'], inner);
    assert.deepEqual((await auth.authenticateToken('ok'))?.audiences, ['api', 'other']);
    assert.deepEqual((await auth.authenticateToken('ok', { audiences: ['other', 'x'] }))?.audiences, ['other']);
    assert.equal(await auth.authenticateToken('ok', { audiences: ['vault'] }), undefined);
    assert.equal(await auth.authenticateToken('bad'), undefined);
  });

  it('answer synchronously for a synchronous inner authenticator, with one answer object per inner answer', () => {
    const alice = { user: { name: 'alice', groups: [] } };
    const auth = audienceAgnostic(['api'], { authenticateToken: (t: string) => (t === 'ok' ? alice : undefined) });
    const first = auth.authenticateToken('ok');
    assert.deepEqual(first, { user: alice.user, audiences: ['api'] });
    assert.equal(auth.authenticateToken('ok'), first);
    assert.equal(auth.authenticateToken('ok', { audiences: [] }), first);
    assert.deepEqual(auth.authenticateToken('ok', { audiences: ['api', 'x'] }), { user: alice.user, audiences: ['api'] });
    assert.equal(auth.authenticateToken('bad'), undefined);
  });

  it('answer asynchronously for an asynchronous inner authenticator', async () => {
    const auth = audienceAgnostic(['api'], { authenticateToken: async (t: string) => (t === 'ok' ? { user: { name: 'u', groups: [] } } : undefined) });
    const pending = auth.authenticateToken('ok');
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, { user: { name: 'u', groups: [] }, audiences: ['api'] });
    assert.deepEqual(await auth.authenticateToken('ok', { audiences: ['api'] }), { user: { name: 'u', groups: [] }, audiences: ['api'] });
    assert.equal(await auth.authenticateToken('bad'), undefined);
  });
});
