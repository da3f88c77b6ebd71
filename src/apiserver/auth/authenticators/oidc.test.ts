import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { StatusError } from '../../../machinery/status.js';
import { effectiveUsernamePrefix, newOidcAuthenticator, validateOidcOptions, type OidcOptions } from './oidc.js';
import { InvalidTokenError } from './service-account-token.js';
import { startTestOidcIssuer, type TestOidcIssuer } from './testing/test-oidc-issuer.js';

const refusedBecause = (why: RegExp) => (e: unknown): boolean => {
  assert.ok(e instanceof StatusError && e.code === 401, `expected a 401, got ${String(e)}`);
  const cause = (e as Error).cause;
  assert.ok(cause instanceof InvalidTokenError, `cause: ${String(cause)}`);
  assert.match(cause.message, why);
  return true;
};

describe('OIDC authenticator', () => {
  let issuer: TestOidcIssuer;
  let options: OidcOptions;
  before(async () => {
    issuer = await startTestOidcIssuer();
    options = { issuerUrl: issuer.url, clientId: 'k8ts', caPem: issuer.caPem, groupsClaim: 'groups', groupsPrefix: 'oidc:' };
  });
  after(async () => {
    await issuer.close();
  });

  it('authenticates an ID token: the prefixed sub by default, prefixed groups', async () => {
    const token = await issuer.sign({ sub: 'jane', aud: 'k8ts', groups: ['dev', 'ops'] });
    const result = await newOidcAuthenticator(options).authenticateToken(token);
    assert.deepEqual(result?.user, { name: `${issuer.url}#jane`, groups: ['oidc:dev', 'oidc:ops'] });
    assert.ok(issuer.requests.includes('/.well-known/openid-configuration') && issuer.requests.includes('/keys'));
  });

  it('reads a single-string groups claim and the email claim without a prefix', async () => {
    const token = await issuer.sign({ sub: 'x', email: 'jane@example.com', email_verified: true, aud: ['other', 'k8ts'], groups: 'dev' });
    const result = await newOidcAuthenticator({ ...options, usernameClaim: 'email' }).authenticateToken(token);
    assert.deepEqual(result?.user, { name: 'jane@example.com', groups: ['oidc:dev'] });
  });

  it('refuses an unverified email', async () => {
    const token = await issuer.sign({ email: 'jane@example.com', email_verified: false, aud: 'k8ts' });
    await assert.rejects(async () => newOidcAuthenticator({ ...options, usernameClaim: 'email' }).authenticateToken(token), refusedBecause(/oidc: email not verified/));
  });

  it('refuses a token for another client', async () => {
    const token = await issuer.sign({ sub: 'jane', aud: 'someone-else' });
    await assert.rejects(async () => newOidcAuthenticator(options).authenticateToken(token), refusedBecause(/aud/));
  });

  it('refuses an expired token', async () => {
    const token = await issuer.sign({ sub: 'jane', aud: 'k8ts', exp: Math.floor(Date.now() / 1000) - 3600 });
    await assert.rejects(async () => newOidcAuthenticator(options).authenticateToken(token), refusedBecause(/exp/));
  });

  it('refuses a token signed by another key', async () => {
    const token = await issuer.sign({ sub: 'jane', aud: 'k8ts' }, { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey });
    await assert.rejects(async () => newOidcAuthenticator(options).authenticateToken(token), refusedBecause(/signature verification failed/));
  });

  it('refuses a token without the username claim', async () => {
    const token = await issuer.sign({ aud: 'k8ts' });
    await assert.rejects(async () => newOidcAuthenticator(options).authenticateToken(token), refusedBecause(/oidc: parse username claims "sub": claim not present/));
  });

  it('does not trust the issuer without its CA', async () => {
    const token = await issuer.sign({ sub: 'jane', aud: 'k8ts' });
    const { caPem: _ca, ...untrusted } = options;
    await assert.rejects(async () => newOidcAuthenticator(untrusted).authenticateToken(token), refusedBecause(/certificate/));
  });

  it('leaves other issuers and non-JWTs to other authenticators', async () => {
    const auth = newOidcAuthenticator(options);
    assert.equal(await auth.authenticateToken(await issuer.sign({ iss: 'https://elsewhere', sub: 'x', aud: 'k8ts' })), undefined);
    assert.equal(await auth.authenticateToken('opaque-token'), undefined);
  });

  it('defaults the username prefix as upstream', () => {
    assert.equal(effectiveUsernamePrefix({ issuerUrl: 'https://i', usernameClaim: 'sub' }), 'https://i#');
    assert.equal(effectiveUsernamePrefix({ issuerUrl: 'https://i', usernameClaim: 'email' }), '');
    assert.equal(effectiveUsernamePrefix({ issuerUrl: 'https://i', usernamePrefix: '-' }), '');
    assert.equal(effectiveUsernamePrefix({ issuerUrl: 'https://i', usernamePrefix: 'corp:' }), 'corp:');
  });

  it('refuses a non-https issuer URL and a missing client id at startup', () => {
    assert.throws(() => validateOidcOptions({ issuerUrl: 'http://i', clientId: 'c' }), /URL scheme must be https/);
    assert.throws(() => validateOidcOptions({ issuerUrl: 'https://i', clientId: '' }), /--oidc-client-id must be set/);
    assert.throws(() => validateOidcOptions({ issuerUrl: 'not a url', clientId: 'c' }), /is not a URL/);
  });
});
