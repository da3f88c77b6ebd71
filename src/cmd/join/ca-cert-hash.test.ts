import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caCertHash } from '../../machinery/bootstrap-token.js';
import { newCertificateAuthority } from '../pki/certificates.js';
import { checkCaCertHash, parseCaCertHash } from './ca-cert-hash.js';

describe('--ca-cert-hash', () => {
  it('takes sha256:<64 hex digits>, in either case', () => {
    const hex = 'ab'.repeat(32);
    assert.equal(parseCaCertHash(`sha256:${hex}`), `sha256:${hex}`);
    assert.equal(parseCaCertHash(`SHA256:${hex.toUpperCase()}`), `sha256:${hex}`);
  });

  it('refuses anything else, naming the value', () => {
    for (const bad of ['', 'abc', `sha1:${'ab'.repeat(20)}`, `sha256:${'ab'.repeat(31)}`, `sha256:${'zz'.repeat(32)}`]) {
      assert.throws(() => parseCaCertHash(bad), new RegExp(`invalid --ca-cert-hash "${bad}": must be sha256:<64 hex digits>`));
    }
  });

  it('accepts a CA whose hash is given and refuses another, naming both hashes', async () => {
    const ca = await newCertificateAuthority();
    const other = await newCertificateAuthority();
    checkCaCertHash(ca.certPem, [caCertHash(other.certPem), caCertHash(ca.certPem)]);
    assert.throws(
      () => checkCaCertHash(ca.certPem, [caCertHash(other.certPem)]),
      (e: Error) => e.message.includes(caCertHash(ca.certPem)) && e.message.includes(caCertHash(other.certPem)) && /refusing to trust this server/.test(e.message),
    );
  });
});
