import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { newBuiltinScheme } from '../../api/resources.js';
import { openApiHash } from './document-hash.js';
import { newOpenApiV2 } from './openapi-v2.js';
import { OPENAPI_V2_PROTOBUF, openApiV2Response } from './openapi-v2-response.js';

const built = new Date('2026-01-02T03:04:05.678Z');
const openapi = newOpenApiV2(newBuiltinScheme(), { now: built });
const KUBECTL_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('openApiV2Response', () => {
  it('serves JSON by default, with Vary, the quoted SHA-512 ETag of the JSON and Last-Modified', () => {
    const r = openApiV2Response(openapi, {});
    assert.equal(r.status, 200);
    assert.ok(r.status === 200 && r.body.equals(openapi.body('json')));
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['etag'], `"${openApiHash(openapi.body('json'))}"`);
    assert.equal(r.headers['last-modified'], 'Fri, 02 Jan 2026 03:04:05 GMT');
    assert.equal(r.headers['vary'], 'Accept-Encoding, Accept');
    assert.equal(JSON.parse(openapi.body('json').toString()).swagger, '2.0');
  });

  it('answers kubectl\'s (deprecated) protobuf name and the current one with the current content type and the same ETag', () => {
    for (const accept of [KUBECTL_ACCEPT, OPENAPI_V2_PROTOBUF, 'text/html, application/com.github.proto-openapi.spec.v2.v1.0+protobuf']) {
      const r = openApiV2Response(openapi, { accept });
      assert.equal(r.status, 200, accept);
      assert.equal(r.headers['content-type'], OPENAPI_V2_PROTOBUF);
      assert.ok(r.status === 200 && r.body.equals(openapi.body('protobuf')));
      assert.equal(r.headers['etag'], `"${openapi.hash()}"`);
    }
    assert.equal(openapi.body('protobuf'), openapi.body('protobuf'), 'encoded once');
  });

  it('follows the clauses in q order, and answers 406 when none matches', () => {
    const r = openApiV2Response(openapi, { accept: `application/json;q=0.5, ${KUBECTL_ACCEPT}` });
    assert.equal(r.headers['content-type'], OPENAPI_V2_PROTOBUF);
    assert.equal(openApiV2Response(openapi, { accept: 'application/*' }).headers['content-type'], 'application/json');
    const no = openApiV2Response(openapi, { accept: 'application/yaml, text/plain' });
    assert.equal(no.status, 406);
    assert.ok(!('body' in no));
  });

  it('answers a matching If-None-Match (strong, weak, in a list, or *) with 304 and no body', () => {
    const etag = `"${openapi.hash()}"`;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = openApiV2Response(openapi, { accept: KUBECTL_ACCEPT, ifNoneMatch });
      assert.equal(r.status, 304, ifNoneMatch);
      assert.deepEqual(r.headers, { vary: 'Accept-Encoding, Accept', etag });
    }
    assert.equal(openApiV2Response(openapi, { ifNoneMatch: '"stale"' }).status, 200);
  });

  it('uses If-Modified-Since only without If-None-Match', () => {
    assert.equal(openApiV2Response(openapi, { ifModifiedSince: 'Fri, 02 Jan 2026 03:04:05 GMT' }).status, 304);
    assert.equal(openApiV2Response(openapi, { ifModifiedSince: 'Fri, 02 Jan 2026 03:04:04 GMT' }).status, 200);
    assert.equal(openApiV2Response(openapi, { ifModifiedSince: 'not a date' }).status, 200);
    assert.equal(openApiV2Response(openapi, { ifModifiedSince: 'Fri, 02 Jan 2026 03:04:05 GMT', ifNoneMatch: '"stale"' }).status, 200);
  });

  it('compresses for clients that accept gzip, as upstream\'s gzip handler does', () => {
    const r = openApiV2Response(openapi, { accept: KUBECTL_ACCEPT, acceptEncoding: 'gzip' });
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.ok(r.status === 200 && gunzipSync(r.body).equals(openapi.body('protobuf')));
    assert.equal(openApiV2Response(openapi, { acceptEncoding: 'gzip;q=0, identity' }).headers['content-encoding'], undefined);
    assert.equal(openApiV2Response(openapi, { acceptEncoding: 'br' }).headers['content-encoding'], undefined);
  });
});
