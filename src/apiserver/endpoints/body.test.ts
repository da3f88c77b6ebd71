import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import type { HttpRequest } from '../server/context.js';
import { decodeDocument, decodeJsonText, readBody } from './body.js';

/** A request stand-in: a readable stream with headers. */
function request(headers: Record<string, string> = {}): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers });
}

describe('readBody', () => {
  it('joins the chunks of the body', async () => {
    const req = request();
    const body = readBody(req as unknown as HttpRequest);
    req.write('{"a":');
    req.end('1}');
    assert.equal((await body).toString(), '{"a":1}');
  });

  it('fails with 413 past the limit, declared or sent', async () => {
    const declared = request({ 'content-length': '11' });
    await assert.rejects(readBody(declared as unknown as HttpRequest, 10), (e: unknown) => e instanceof StatusError && e.code === 413);
    const sent = request();
    const body = readBody(sent as unknown as HttpRequest, 10);
    sent.write('0123456789');
    sent.write('x');
    await assert.rejects(body, (e: unknown) => e instanceof StatusError && e.code === 413);
  });

  it('fails when the request closes before its end, as a stream iterator does', async () => {
    const req = request();
    const body = readBody(req as unknown as HttpRequest);
    req.write('{');
    req.destroy();
    await assert.rejects(body, (e: unknown) => (e as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE');
    await assert.rejects(readBody(req as unknown as HttpRequest), (e: unknown) => (e as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE');
  });

  it('passes on a stream error', async () => {
    const req = request();
    const body = readBody(req as unknown as HttpRequest);
    req.destroy(new Error('reset'));
    await assert.rejects(body, /reset/);
  });

  it('answers an empty body for a request already read to its end', async () => {
    const req = request();
    req.end();
    req.resume();
    await new Promise((resolve) => req.on('end', resolve));
    assert.equal((await readBody(req as unknown as HttpRequest)).length, 0);
  });
});

describe('decodeJsonText', () => {
  it('refuses an empty or white-space-only body (what trim removes: spaces, tabs, line ends, NBSP, BOM) with 400', () => {
    for (const text of ['', ' ', '\n\t\r', '\u00a0\ufeff\u2028 ']) {
      assert.throws(
        () => decodeJsonText(text),
        (e: unknown) => e instanceof StatusError && e.status.code === 400 && e.status.message === 'the request body is empty',
      );
    }
  });

  it('decodes a body with white space around it, and names the parser error of a malformed one', () => {
    assert.deepEqual(decodeJsonText(' \n{"a":1}\n'), { a: 1 });
    assert.throws(() => decodeJsonText(' x'), (e: unknown) => e instanceof StatusError && e.status.code === 400 && (e.status.message ?? '').startsWith('error decoding the request body as JSON: '));
  });
});

describe('decodeDocument (YAML)', () => {
  const yaml = (text: string): unknown => decodeDocument(Buffer.from(text), 'yaml');

  it('resolves plain scalars as Go\'s yaml.v2 does', () => {
    assert.deepEqual(yaml('a: e5\nb: .\nc: -.\nd: 1:20\ne: 190:20:30\n'), { a: 'e5', b: '.', c: '-.', d: '1:20', e: '190:20:30' });
    assert.deepEqual(yaml('a: 1e5\nb: .5\nc: 1.5e3\nd: -2.\ne: 0x1f\nf: 010\ng: y\nh: off\ni: ~\nj: .inf\n'), {
      a: 100000,
      b: 0.5,
      c: 1500,
      d: -2,
      e: 31,
      f: 8,
      g: true,
      h: false,
      i: null,
      j: Infinity,
    });
  });

  it('decodes only the first document of several, as one Go YAML Unmarshal does', () => {
    assert.deepEqual(yaml('kind: ConfigMap\nmetadata: {name: a}\n---\nkind: Secret\n'), { kind: 'ConfigMap', metadata: { name: 'a' } });
  });

  it('answers a malformed first document with a 400 naming the YAML error', () => {
    assert.throws(
      () => yaml('a: [unclosed\n---\nb: 1\n'),
      (e: unknown) => e instanceof StatusError && e.status.code === 400 && /^error decoding the request body as YAML: /.test(e.status.message ?? ''),
    );
  });
});
