import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import { newOpenApiV3 } from './openapi-v3.js';
import { openApiV3Response } from './openapi-v3-response.js';

const built = new Date('2026-01-02T03:04:05.678Z');
const openapi = newOpenApiV3(newBuiltinScheme(), { now: built });
const apps = openapi.document('apis/apps/v1')!;

describe('openApiV3Response', () => {
  it('serves the index with its ETag, and 304 when it matches', () => {
    const r = openApiV3Response(openapi, { path: '/openapi/v3' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['etag'], `"${openapi.index.hash}"`);
    assert.equal(openApiV3Response(openapi, { path: '/openapi/v3', ifNoneMatch: `"${openapi.index.hash}"` }).status, 304);
  });

  it('serves a document asked for by its current hash as immutable', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const r = openApiV3Response(openapi, { path: '/openapi/v3/apis/apps/v1', hash: apps.hash, accept: 'application/json', now });
    assert.equal(r.status, 200);
    assert.ok(r.status === 200 && r.body.equals(apps.bytes));
    assert.equal(r.headers['cache-control'], 'public, immutable');
    assert.equal(r.headers['expires'], 'Mon, 01 Jun 2026 00:00:00 GMT');
    assert.equal(r.headers['etag'], `"${apps.hash}"`);
    assert.equal(r.headers['vary'], 'Accept');
  });

  it('redirects a stale hash to the current URL, and serves without a hash uncached', () => {
    const r = openApiV3Response(openapi, { path: '/openapi/v3/apis/apps/v1', hash: 'ABC' });
    assert.equal(r.status, 301);
    assert.equal(r.headers['location'], apps.serverRelativeURL);
    const plain = openApiV3Response(openapi, { path: '/openapi/v3/apis/apps/v1' });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['cache-control'], undefined);
  });

  it('sends Last-Modified (the index\'s is the request time) and honours If-Modified-Since without If-None-Match', () => {
    const now = new Date('2026-03-04T05:06:07Z');
    assert.equal(openApiV3Response(openapi, { path: '/openapi/v3', now }).headers['last-modified'], 'Wed, 04 Mar 2026 05:06:07 GMT');
    const doc = openApiV3Response(openapi, { path: '/openapi/v3/apis/apps/v1' });
    assert.equal(doc.headers['last-modified'], 'Fri, 02 Jan 2026 03:04:05 GMT');
    const since = openApiV3Response(openapi, { path: '/openapi/v3/apis/apps/v1', ifModifiedSince: 'Fri, 02 Jan 2026 03:04:05 GMT' });
    assert.equal(since.status, 304);
    assert.deepEqual(since.headers, { vary: 'Accept', etag: `"${apps.hash}"` });
    assert.equal(openApiV3Response(openapi, { path: '/openapi/v3/apis/apps/v1', ifModifiedSince: 'Thu, 01 Jan 2026 00:00:00 GMT' }).status, 200);
    assert.equal(openApiV3Response(openapi, { path: '/openapi/v3/apis/apps/v1', ifNoneMatch: `W/"${apps.hash}"` }).status, 304);
  });

  it('refuses unknown documents and non-JSON encodings', () => {
    assert.equal(openApiV3Response(openapi, { path: '/openapi/v3/apis/extensions/v1beta1' }).status, 404);
    const pb = openApiV3Response(openapi, { path: '/openapi/v3/api/v1', accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' });
    assert.equal(pb.status, 406);
    assert.equal(openApiV3Response(openapi, { path: '/openapi/v3/api/v1', accept: 'application/json, */*' }).status, 200);
  });
});
