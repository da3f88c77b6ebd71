import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUnauthorized } from './testing/is-unauthorized.js';
import { certificateSocket, fakeRequest } from './testing/fake-request.js';
import { newX509Authenticator } from './x509.js';

describe('x509 authenticator', () => {
  it('names the user after the CN and the groups after the O values, with the credential id', async () => {
    const ctx = fakeRequest({ socket: certificateSocket({ CN: 'alice', O: ['dev', 'ops'] }) });
    const result = await newX509Authenticator().authenticate(ctx);
    assert.deepEqual(result?.user, {
      name: 'alice',
      groups: ['dev', 'ops'],
      extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=abcdef'] },
    });
  });

  it('reads a single O as one group', async () => {
    const result = await newX509Authenticator().authenticate(fakeRequest({ socket: certificateSocket({ CN: 'bob', O: 'system:masters' }) }));
    assert.deepEqual(result?.user.groups, ['system:masters']);
  });

  it('has no opinion without a certificate', async () => {
    assert.equal(await newX509Authenticator().authenticate(fakeRequest()), undefined);
  });

  it('has no opinion on a verified certificate without a CN', async () => {
    assert.equal(await newX509Authenticator().authenticate(fakeRequest({ socket: certificateSocket({ O: 'x' }) })), undefined);
  });

  it('refuses a certificate from another CA (401)', async () => {
    const ctx = fakeRequest({ socket: certificateSocket({ CN: 'mallory' }, { authorized: false }) });
    await assert.rejects(async () => newX509Authenticator().authenticate(ctx), isUnauthorized);
  });

  it('refuses a certificate not meant for client authentication (401)', async () => {
    const ctx = fakeRequest({ socket: certificateSocket({ CN: 'web' }, { extKeyUsage: ['1.3.6.1.5.5.7.3.1'] }) });
    await assert.rejects(async () => newX509Authenticator().authenticate(ctx), isUnauthorized);
  });

  it('reads a connection once', async () => {
    let reads = 0;
    const socket = { authorized: true, getPeerCertificate: () => (reads++, { subject: { CN: 'carol' } }) };
    const x509 = newX509Authenticator();
    const ctx = fakeRequest({ socket });
    await x509.authenticate(ctx);
    await x509.authenticate(fakeRequest({ socket }));
    assert.equal(reads, 1);
  });
});
