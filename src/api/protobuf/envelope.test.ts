import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ProtobufError } from './codec.js';
import { decodeObject, encodeObject, encodeWatchFrame, openEnvelope, PROTOBUF_MAGIC, WatchFrameReader } from './envelope.js';

// Bodies real kubectl sent (see testdata/kubectl-1.33/README.md); read from the source tree.
const FIXTURES = new URL('../../../../src/api/protobuf/testdata/kubectl-1.33/', import.meta.url);

/** kubectl 1.31's JSON body with the 1.33 run's names, and without the `creationTimestamp: null` upstream's types now omit. */
function expectedFromJson(text: string): unknown {
  const value = JSON.parse(text.replaceAll('proto-js', 'proto-pb').replaceAll('-js"', '-pb"')) as unknown;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'creationTimestamp' && x === null) delete (v as Record<string, unknown>)[k];
        else walk(x);
      }
    }
  };
  walk(value);
  return value;
}

describe('protobuf envelope', () => {
  it('starts with k8s\\0 and names the type in runtime.Unknown', () => {
    const bytes = encodeObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } });
    assert.ok(bytes.subarray(0, 4).equals(PROTOBUF_MAGIC));
    const envelope = openEnvelope(bytes);
    assert.equal(envelope.apiVersion, 'apps/v1');
    assert.equal(envelope.kind, 'Deployment');
    // Deployment.metadata (field 1, length-delimited) starting with ObjectMeta.name (field 1) "web".
    const raw = Buffer.from(envelope.raw);
    assert.equal(raw[0], 0x0a);
    assert.ok(raw.subarray(2, 7).equals(Buffer.from([0x0a, 0x03, 0x77, 0x65, 0x62])));
  });

  it('rejects bodies that are not enveloped protobuf with upstream texts', () => {
    assert.throws(() => openEnvelope(Buffer.alloc(0)), (e: unknown) => e instanceof ProtobufError && e.message === 'empty data');
    assert.throws(() => openEnvelope(PROTOBUF_MAGIC), /^ProtobufError: empty body$/);
    assert.throws(() => openEnvelope(Buffer.from('{"kind":"Pod"}')), /provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/);
    assert.throws(() => openEnvelope(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x12, 0x09, 0x01])])), /unexpected EOF/);
    assert.throws(() => decodeObject(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x0a, 0x0a, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x04, 0x4e, 0x6f, 0x70, 0x65])])), /no kind "Nope" is registered for version "v1"/);
  });

  it('splits a watch stream into events, whatever the chunking', () => {
    const cm = (n: number): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n}`, resourceVersion: String(n) }, data: { n: String(n) } });
    const stream = Buffer.concat([encodeWatchFrame('ADDED', cm(1)), encodeWatchFrame('MODIFIED', cm(2)), encodeWatchFrame('BOOKMARK', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '3' } })]);
    for (const size of [1, 3, 7, stream.length]) {
      const reader = new WatchFrameReader();
      const events = [];
      for (let i = 0; i < stream.length; i += size) events.push(...reader.push(stream.subarray(i, i + size)));
      assert.deepEqual(
        events.map((e) => [e.type, e.object.metadata]),
        [
          ['ADDED', { name: 'cm-1', resourceVersion: '1' }],
          ['MODIFIED', { name: 'cm-2', resourceVersion: '2' }],
          ['BOOKMARK', { resourceVersion: '3' }],
        ],
      );
    }
    // The frame is the raw WatchEvent, not enveloped: it starts with field 1 (type).
    assert.equal(encodeWatchFrame('ADDED', cm(1))[4], 0x0a);
  });

  const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.pb'));
  it('has the captured kubectl bodies', () => assert.ok(fixtures.length >= 15));
  for (const file of fixtures) {
    it(`decodes kubectl 1.33's ${file} to what kubectl 1.31 sends as JSON, and encodes it back to the same bytes`, () => {
      const body = readFileSync(new URL(file, FIXTURES));
      const decoded = decodeObject(body);
      assert.deepEqual(decoded, expectedFromJson(readFileSync(new URL(file.replace(/\.pb$/, '.json'), FIXTURES), 'utf8')));
      // And encoding it again gives kubectl's bytes exactly: field numbers, wire types, order, zero values.
      assert.ok(encodeObject(decoded).equals(body), 'byte for byte what Go marshals');
    });
  }
});
