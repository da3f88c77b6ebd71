import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFIG_MAPS, SECRETS, SERVICE_ACCOUNTS, SERVICES } from '../../client/rest/resources.js';
import type { Client } from '../../client/rest/interface.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import type { Pod } from '../types.js';
import { newApiObjectSource } from './object-source.js';

describe('API object source', () => {
  const setUp = () => {
    const client = newFakeClient();
    client.seed(CONFIG_MAPS, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' }, data: { a: '1' } }]);
    client.seed(SECRETS, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, data: { p: 'cHc=' } }]);
    client.seed(SERVICES, [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns' }, spec: { clusterIP: '10.96.0.5', ports: [{ port: 80 }] } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'other', namespace: 'elsewhere' }, spec: { clusterIP: '10.96.0.6', ports: [{ port: 80 }] } },
    ]);
    client.seed(SERVICE_ACCOUNTS, [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'ns' } }]);
    let now = 1_000;
    const source = newApiObjectSource({ client, cacheTtlMs: 2000, clock: () => now });
    return { client, source, advance: (ms: number) => (now += ms) };
  };

  it('gets ConfigMaps and Secrets, undefined for a 404, and lists a namespace\'s services', async () => {
    const { source } = setUp();
    assert.deepEqual((await source.configMap('ns', 'cfg'))?.data, { a: '1' });
    assert.deepEqual((await source.secret('ns', 's'))?.data, { p: 'cHc=' });
    assert.equal(await source.configMap('ns', 'nope'), undefined);
    assert.equal(await source.secret('other', 's'), undefined);
    assert.deepEqual((await source.services('ns')).map((s) => s.metadata.name), ['web']);
  });

  it('caches reads for the TTL, then reads again', async () => {
    const { client, source, advance } = setUp();
    await source.configMap('ns', 'cfg');
    await client.resource(CONFIG_MAPS).update({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' }, data: { a: '2' } });
    advance(1000);
    assert.deepEqual((await source.configMap('ns', 'cfg'))?.data, { a: '1' });
    advance(1001);
    assert.deepEqual((await source.configMap('ns', 'cfg'))?.data, { a: '2' });
    assert.equal(await source.configMap('ns', 'late'), undefined);
    await client.resource(CONFIG_MAPS).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: 'ns' }, data: {} });
    assert.equal(await source.configMap('ns', 'late'), undefined, 'a 404 is cached too');
    advance(2001);
    assert.deepEqual((await source.configMap('ns', 'late'))?.data, {});
  });

  it('rejects other failures without caching them', async () => {
    const { client, source } = setUp();
    client.injectError('get', 'configmaps', new Error('boom'));
    await assert.rejects(source.configMap('ns', 'cfg'), /boom/);
    assert.deepEqual((await source.configMap('ns', 'cfg'))?.data, { a: '1' });
    client.injectError('list', 'services', new Error('down'));
    await assert.rejects(source.services('ns'), /down/);
    assert.equal((await source.services('ns')).length, 1);
  });

  it('uses the last value read when the API server does not answer in time, and fails for an object never read', async () => {
    const fake = newFakeClient();
    fake.seed(CONFIG_MAPS, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' }, data: { a: '1' } }]);
    fake.seed(SERVICES, [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns' }, spec: { clusterIP: '10.96.0.5', ports: [{ port: 80 }] } }]);
    // An API server stopped with SIGSTOP: requests are accepted and never answered.
    let hang = false;
    const never = new Promise<never>(() => undefined);
    const client: Client = {
      resource: (ref) =>
        new Proxy(fake.resource(ref), {
          get(target, prop) {
            if (hang && (prop === 'get' || prop === 'list' || prop === 'createSubresource')) return () => never;
            const value: unknown = Reflect.get(target, prop, target);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        }),
    };
    let now = 1_000;
    const source = newApiObjectSource({ client, cacheTtlMs: 2000, readTimeoutMs: 50, staleAfterMs: 20, clock: () => now });
    assert.deepEqual((await source.configMap('ns', 'cfg'))?.data, { a: '1' });
    assert.equal((await source.services('ns')).length, 1);
    hang = true;
    now += 5_000;
    assert.deepEqual((await source.configMap('ns', 'cfg'))?.data, { a: '1' });
    assert.equal((await source.services('ns')).length, 1);
    await assert.rejects(source.configMap('ns', 'never-read'), /reading configmaps\/ns\/never-read from the API server timed out after 50 ms/);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [] } } as Pod;
    await assert.rejects(source.serviceAccountToken(pod, { expirationSeconds: 3600 }), /timed out after 50 ms/);
  });

  it('requests a token bound to the pod from its service account', async () => {
    const { client, source } = setUp();
    const pod: Pod = { metadata: { name: 'web-1', namespace: 'ns', uid: 'uid-1' }, spec: { serviceAccountName: 'builder', containers: [] } };
    const token = await source.serviceAccountToken(pod, { audience: 'vault', expirationSeconds: 600 });
    assert.equal(token.token, 'fake-token-ns-builder');
    assert.ok(Date.parse(token.expirationTimestamp) > Date.now());
    const [action] = client.actionsOf('create', 'serviceaccounts/token');
    assert.equal(action?.name, 'builder');
    assert.deepEqual((action?.body as { spec: unknown }).spec, {
      audiences: ['vault'],
      expirationSeconds: 600,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: 'uid-1' },
    });
    await source.serviceAccountToken(pod, { expirationSeconds: 3607 });
    const second = client.actionsOf('create', 'serviceaccounts/token')[1];
    assert.equal('audiences' in ((second?.body as { spec: object }).spec), false, 'no audience: the API server\'s own');
    await assert.rejects(source.serviceAccountToken({ ...pod, spec: { containers: [], serviceAccountName: 'ghost' } }, { expirationSeconds: 600 }), /not found/);
  });
});
