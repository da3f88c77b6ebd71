import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { newBuiltinScheme } from '../../../../api/resources.js';
import { StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { signingKeyFromPem } from '../../../auth/authenticators/service-account-keys.js';
import { ServiceAccountTokenIssuer } from '../../../auth/authenticators/service-account-token.js';
import type { Target } from '../../../endpoints/target.js';
import { fakePost } from '../../authentication/testing/fake-post.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import { Registry } from '../../registry.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const key = signingKeyFromPem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'sa.key');

describe('serviceaccounts/token (TokenRequest)', () => {
  let registry: Registry;
  let saUid: string;
  beforeEach(async () => {
    registry = new Registry({
      scheme: newBuiltinScheme(),
      storage: new ObjectStorage(newMemoryStorage()),
      prefix: '/registry',
      watchCache: false,
      definitions: builtinDefinitions({ serviceAccountTokens: { issuer: new ServiceAccountTokenIssuer(ISSUER, key), apiAudiences: [ISSUER] } }),
    });
    await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    const sa = await registry.store('', 'v1', 'serviceaccounts').create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
    saUid = sa.metadata.uid ?? '';
    await registry.store('', 'v1', 'pods').create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { serviceAccountName: 'builder', nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] } });
    await registry.store('', 'v1', 'pods').create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other' }, spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'x' }] } });
  });

  async function request(name: string, spec: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
    const entry = registry.lookup('', 'v1', 'serviceaccounts')!;
    const sub = entry.subresources.get('token')!;
    const { ctx, answer } = fakePost(`/api/v1/namespaces/default/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
    const target: Target = {
      resource: entry.info,
      subresource: sub.info,
      store: sub.store,
      namespace: 'default',
      name,
      lookup: (g, v, r) => registry.lookup(g, v, r)?.store,
    };
    await sub.handlers.create!(ctx, target);
    return answer();
  }

  const fails = (code: number, message: RegExp) => (e: unknown): boolean => {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return true;
  };

  it('issues a token with the default audience and an hour of life', async () => {
    const { status, body } = await request('builder', {});
    assert.equal(status, 201);
    assert.deepEqual(body.metadata, { name: 'builder', namespace: 'default', creationTimestamp: null });
    assert.deepEqual(body.spec, { audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null });
    const { token, expirationTimestamp } = body.status as { token: string; expirationTimestamp: string };
    const claims = decodeJwt(token);
    assert.equal(claims.sub, 'system:serviceaccount:default:builder');
    assert.equal(new Date(expirationTimestamp).getTime() / 1000, claims.exp);
    assert.deepEqual((claims['kubernetes.io'] as { serviceaccount: unknown }).serviceaccount, { name: 'builder', uid: saUid });
  });

  it('binds to a pod of the service account, naming its node', async () => {
    const { body } = await request('builder', { audiences: ['vault'], expirationSeconds: 600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } });
    const claims = decodeJwt((body.status as { token: string }).token);
    assert.deepEqual(claims.aud, ['vault']);
    const k = claims['kubernetes.io'] as { pod: { name: string }; node: { name: string } };
    assert.equal(k.pod.name, 'web');
    assert.equal(k.node.name, 'n1');
  });

  it('refuses a pod of another service account, a foreign uid, and other kinds', async () => {
    await assert.rejects(request('builder', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other' } }), fails(400, /cannot bind token for serviceaccount "builder" to pod running with serviceaccount "default"/));
    await assert.rejects(request('builder', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'stale' } }), fails(409, /the UID in the bound object reference \(stale\) does not match the UID in record\. The object might have been deleted and then recreated$/));
    await assert.rejects(request('builder', { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'x' } }), fails(400, /^cannot bind token to object of type apps\/v1, Kind=Deployment$/));
    await assert.rejects(request('builder', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'missing' } }), fails(404, /pods "missing" not found/));
  });

  it('refuses durations under 10 minutes and over 2^32 seconds (422)', async () => {
    await assert.rejects(request('builder', { expirationSeconds: 599 }), fails(422, /spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes/));
    await assert.rejects(request('builder', { expirationSeconds: 2 ** 32 + 1 }), fails(422, /may not specify a duration larger than 2\^32 seconds/));
  });

  it('answers 404 for a missing service account', async () => {
    await assert.rejects(request('ghost', {}), fails(404, /serviceaccounts "ghost" not found/));
  });
});
