import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goDialError, goDuration, goQuote, grpcCodeName, joinHostPort } from './go-format.js';

describe('go-format', () => {
  it('writes durations as Go does', () => {
    assert.equal(goDuration(0), '0s');
    assert.equal(goDuration(1000), '1s');
    assert.equal(goDuration(1500), '1.5s');
    assert.equal(goDuration(250), '250ms');
    assert.equal(goDuration(60_000), '1m0s');
    assert.equal(goDuration(90_000), '1m30s');
    assert.equal(goDuration(3_600_000), '1h0m0s');
    assert.equal(goDuration(0.5), '500µs');
  });

  it('quotes, joins and names as Go does', () => {
    assert.equal(goQuote('sh -c "x"'), '"sh -c \\"x\\""');
    assert.equal(joinHostPort('10.0.0.1', 80), '10.0.0.1:80');
    assert.equal(joinHostPort('::1', 80), '[::1]:80');
    assert.equal(grpcCodeName(5), 'NotFound');
    assert.equal(grpcCodeName(12), 'Unimplemented');
    assert.equal(grpcCodeName(99), 'Code(99)');
  });

  it('writes dial errors as the net package does', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    assert.equal(goDialError('127.0.0.1:1', refused), 'dial tcp 127.0.0.1:1: connect: connection refused');
    assert.equal(goDialError('10.0.0.1:80', undefined, true), 'dial tcp 10.0.0.1:80: i/o timeout');
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND x.invalid'), { code: 'ENOTFOUND' });
    assert.equal(goDialError('x.invalid:80', notFound), 'dial tcp: lookup x.invalid: no such host');
    assert.equal(goDialError('1.2.3.4:5', new Error('odd')), 'dial tcp 1.2.3.4:5: odd');
  });
});
