import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../types.js';
import { FakeObjectSource } from './testing/fake-object-source.js';
import { newTokenCache, requiresRefresh } from './token-cache.js';

const HOUR = 3600_000;
const pod = (uid: string): Pod => ({ metadata: { name: `p-${uid}`, namespace: 'ns', uid }, spec: { containers: [], serviceAccountName: 'sa' } });

describe('service account token cache', () => {
  it('refreshes after 80% of the life, or after 24 hours', () => {
    const issued = 1_000_000;
    const oneHour = { expiresMs: issued + HOUR, expirationSeconds: 3600 };
    assert.equal(requiresRefresh(oneHour, issued + 0.8 * HOUR - 1), false);
    assert.equal(requiresRefresh(oneHour, issued + 0.8 * HOUR + 1), true);
    const twoDays = { expiresMs: issued + 48 * HOUR, expirationSeconds: 48 * 3600 };
    assert.equal(requiresRefresh(twoDays, issued + 24 * HOUR - 1), false);
    assert.equal(requiresRefresh(twoDays, issued + 24 * HOUR + 1), true);
  });

  it('reuses a token until it needs refreshing, per pod and per audience/expiration', async () => {
    let now = 1_000_000;
    const source = new FakeObjectSource({ clock: () => now });
    const cache = newTokenCache({ source, clock: () => now });
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 3600 }), 'token-1');
    now += 0.5 * HOUR;
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 3600 }), 'token-1');
    assert.equal(await cache.token(pod('a'), { audience: 'vault', expirationSeconds: 3600 }), 'token-2');
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 7200 }), 'token-3');
    assert.equal(await cache.token(pod('b'), { expirationSeconds: 3600 }), 'token-4');
    now += 0.31 * HOUR;
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 3600 }), 'token-5');
    assert.deepEqual(source.tokenRequests[1], { pod: 'p-a', audience: 'vault', expirationSeconds: 3600 });
    cache.forget('a');
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 3600 }), 'token-6');
  });

  it('keeps an unexpired token when renewing fails, and fails once it has expired', async () => {
    let now = 1_000_000;
    const source = new FakeObjectSource({ clock: () => now });
    const cache = newTokenCache({ source, clock: () => now });
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 3600 }), 'token-1');
    source.fail = new Error('apiserver down');
    now += 0.9 * HOUR;
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 3600 }), 'token-1');
    now += 0.2 * HOUR;
    await assert.rejects(cache.token(pod('a'), { expirationSeconds: 3600 }), /apiserver down/);
    await assert.rejects(cache.token(pod('b'), { expirationSeconds: 3600 }), /apiserver down/);
    source.fail = undefined;
    assert.equal(await cache.token(pod('a'), { expirationSeconds: 3600 }), 'token-2');
  });

  it('rejects a response whose expiry is not a time', async () => {
    const source = new FakeObjectSource();
    source.serviceAccountToken = async () => ({ token: 't', expirationTimestamp: 'soon' });
    await assert.rejects(newTokenCache({ source, clock: Date.now }).token(pod('a'), { expirationSeconds: 600 }), /expirationTimestamp "soon" is not a time/);
  });
});
