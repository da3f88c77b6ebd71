import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { invalid, notFound } from '../../machinery/status.js';
import { invalid as invalidField } from '../../machinery/field-errors.js';
import { decodeObject } from '../../api/protobuf/envelope.js';
import type { RequestContext } from './context.js';
import { encodeGoYaml, statusBody, writeError, writeObject } from './response.js';

describe('statusBody', () => {
  it('writes a Status as upstream does: Go field order, empty fields left out', () => {
    const text = JSON.stringify(statusBody(notFound({ group: '', resource: 'configmaps' }, 'cn1').status));
    assert.equal(
      text,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"cn1\\" not found","reason":"NotFound","details":{"name":"cn1","kind":"configmaps"},"code":404}',
    );
  });

  it('keeps the causes of an Invalid error in reason, message, field order', () => {
    const body = statusBody(invalid({ group: '', kind: 'ConfigMap' }, 'Bad_Name', [invalidField('metadata.name', 'Bad_Name', 'bad')]).status);
    const details = body.details as { causes: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(body), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
    assert.deepEqual(Object.keys(details.causes[0]!), ['reason', 'message', 'field']);
  });
});

describe('writeObject and writeError in protobuf', () => {
  /** A response that records what is written to it. */
  function fakeContext(accept: string | undefined): { ctx: RequestContext; sent: () => { code: number; headers: Record<string, unknown>; body: Buffer } } {
    let code = 0;
    let headers: Record<string, unknown> = {};
    let body = Buffer.alloc(0);
    const res = {
      headersSent: false,
      setHeader: (k: string, v: unknown) => (headers[k] = v),
      writeHead: (c: number, h: Record<string, unknown>) => {
        code = c;
        headers = { ...headers, ...h };
      },
      end: (b?: string | Buffer) => {
        body = b === undefined ? Buffer.alloc(0) : Buffer.from(b);
      },
    };
    const ctx = { req: { method: 'GET', headers: accept === undefined ? {} : { accept } }, res, path: '/x', query: new URLSearchParams(), warnings: [], info: { verb: 'get' } } as unknown as RequestContext;
    return { ctx, sent: () => ({ code, headers, body }) };
  }
  const PROTOBUF = { encoding: 'protobuf', contentType: 'application/vnd.kubernetes.protobuf' } as const;

  it('writes enveloped protobuf', () => {
    const { ctx, sent } = fakeContext(undefined);
    writeObject(ctx, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } }, PROTOBUF);
    assert.equal(sent().headers['content-type'], 'application/vnd.kubernetes.protobuf');
    assert.deepEqual(decodeObject(sent().body), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
  });

  it('answers a kind without a protobuf message in JSON', () => {
    const { ctx, sent } = fakeContext(undefined);
    writeObject(ctx, 200, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }, PROTOBUF);
    assert.equal(sent().headers['content-type'], 'application/json');
    assert.equal(JSON.parse(sent().body.toString()).kind, 'Widget');
  });

  it('writes errors in protobuf when Accept prefers it, else in JSON', () => {
    const error = notFound({ group: '', resource: 'configmaps' }, 'cn1');
    const pb = fakeContext('application/vnd.kubernetes.protobuf, application/json');
    writeError(pb.ctx, error, () => {});
    assert.equal(pb.sent().code, 404);
    assert.equal(pb.sent().headers['content-type'], 'application/vnd.kubernetes.protobuf');
    assert.deepEqual(decodeObject(pb.sent().body), statusBody(error.status));
    for (const accept of ['application/json, application/vnd.kubernetes.protobuf', 'application/yaml', 'text/html', undefined]) {
      const other = fakeContext(accept);
      writeError(other.ctx, error, () => {});
      assert.equal(other.sent().headers['content-type'], 'application/json', String(accept));
    }
  });
});

describe('encodeGoYaml', () => {
  it('writes YAML as upstream’s JSONToYAML does: sorted keys, unindented sequences, YAML 1.1 look-alikes quoted', () => {
    const object = {
      metadata: { name: 'c1', creationTimestamp: '2026-12-03T15:49:54Z', resourceVersion: '101', labels: { b: 'on', a: 'yes', c: '0x1F', d: '1:20' } },
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      items: [{ data: { k: 'v' } }],
    };
    assert.equal(
      encodeGoYaml(object),
      [
        'apiVersion: v1',
        'items:',
        '- data:',
        '    k: v',
        'kind: ConfigMapList',
        'metadata:',
        '  creationTimestamp: "2026-12-03T15:49:54Z"',
        '  labels:',
        '    a: "yes"',
        '    b: "on"',
        '    c: "0x1F"',
        '    d: "1:20"',
        '  name: c1',
        '  resourceVersion: "101"',
        '',
      ].join('\n'),
    );
  });
});
