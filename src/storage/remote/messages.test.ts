import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conflict, compacted, futureRevision, isStorageError, keyExists, StorageError } from '../errors.js';
import type { KeyValue } from '../interface.js';
import { errorFromWire, wireError, type WireError } from './codec.js';
import { FrameReader, type FrameSink } from './frames.js';
import { MessageWriter, readMessage, type Message } from './messages.js';

const enc = (s: string): Buffer => Buffer.from(s, 'utf8');

/** A sink that keeps what is written, and how many writes it took. */
function collector(): FrameSink & { readonly writes: Buffer[]; bytes(): Buffer } {
  const writes: Buffer[] = [];
  return {
    writes,
    destroyed: false,
    writableEnded: false,
    write: (bytes: Buffer) => writes.push(Buffer.from(bytes)),
    end: () => {},
    bytes: () => Buffer.concat(writes),
  };
}

/** The bytes `write` sends (close() sends what the turn's flush would). */
function encode(write: (out: MessageWriter) => void): Buffer {
  const sink = collector();
  const out = new MessageWriter(sink);
  write(out);
  out.close();
  return sink.bytes();
}

/** The messages read from `bytes`, pushed in chunks of the given sizes (cycled). */
function decode(bytes: Buffer, chunkSizes: readonly number[] = [bytes.length]): Message[] {
  const messages: Message[] = [];
  const reader = new FrameReader((f) => messages.push(readMessage(f)));
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = chunkSizes[i % chunkSizes.length]!;
    reader.push(bytes.subarray(at, at + size));
    at += size;
  }
  return messages;
}

const kv = (key: string, value: string, createRevision: number, modRevision: number): KeyValue => ({
  key,
  value: enc(value),
  createRevision,
  modRevision,
});

const UNICODE_KEY = '/registry/configmaps/ünïcødé/名前-🚀';

/** One message of every kind, as written and as read back. */
const samples: Array<{ readonly write: (out: MessageWriter) => void; readonly read: Message }> = [
  {
    write: (out) => out.json({ op: 'list', id: 1, prefix: '/a/' }),
    read: { kind: 'json', header: { op: 'list', id: 1, prefix: '/a/' }, blobs: [] },
  },
  {
    write: (out) => out.json({ id: 2, r: { n: 1 } }, [enc('abc'), enc(''), enc('dé')]),
    read: { kind: 'json', header: { id: 2, r: { n: 1 }, b: [3, 0, 3] }, blobs: [enc('abc'), enc(''), enc('dé')] },
  },
  { write: (out) => out.get(3, '/r/x'), read: { kind: 'get', id: 3, key: '/r/x' } },
  { write: (out) => out.create(4, UNICODE_KEY, enc('{"a":1}')), read: { kind: 'create', id: 4, key: UNICODE_KEY, value: enc('{"a":1}') } },
  {
    write: (out) => out.update(5, '/r/x', enc('v2'), Number.MAX_SAFE_INTEGER),
    read: { kind: 'update', id: 5, key: '/r/x', value: enc('v2'), expectedModRevision: Number.MAX_SAFE_INTEGER },
  },
  {
    write: (out) => out.written(6, kv('/r/x', 'ignored: a write answer has no value', 7, 2 ** 40)),
    read: { kind: 'written', id: 6, createRevision: 7, modRevision: 2 ** 40 },
  },
  { write: (out) => out.got(7, kv(UNICODE_KEY, 'ü', 3, 4)), read: { kind: 'got', id: 7, kv: kv(UNICODE_KEY, 'ü', 3, 4) } },
  { write: (out) => out.got(8, undefined), read: { kind: 'got', id: 8, kv: undefined } },
  {
    write: (out) => out.event(9, { type: 'PUT', kv: kv('/w/a', 'new', 5, 5) }),
    read: { kind: 'event', watch: 9, event: { type: 'PUT', kv: kv('/w/a', 'new', 5, 5) } },
  },
  {
    write: (out) => out.event(9, { type: 'PUT', kv: kv('/w/a', 'newer', 5, 6), prevKv: kv('/w/a', 'new', 5, 5) }),
    read: { kind: 'event', watch: 9, event: { type: 'PUT', kv: kv('/w/a', 'newer', 5, 6), prevKv: kv('/w/a', 'new', 5, 5) } },
  },
  {
    write: (out) => out.event(10, { type: 'DELETE', key: UNICODE_KEY, revision: 8, prevKv: kv(UNICODE_KEY, '', 1, 2) }),
    read: { kind: 'event', watch: 10, event: { type: 'DELETE', key: UNICODE_KEY, revision: 8, prevKv: kv(UNICODE_KEY, '', 1, 2) } },
  },
];

/** Messages with their values as plain bytes, so that Buffers and Uint8Arrays of the same bytes compare equal. */
function plain(messages: readonly Message[]): unknown {
  return JSON.parse(JSON.stringify(messages, (_, v: unknown) => (v instanceof Uint8Array ? [...v] : v)));
}

const plainKv = (x: KeyValue | undefined): unknown => (x === undefined ? undefined : { ...x, value: [...x.value] });

describe('remote store messages', () => {
  it('read back as written, one message of every kind', () => {
    for (const { write, read } of samples) assert.deepEqual(plain(decode(encode(write))), plain([read]));
  });

  it('read back from one chunk holding many frames, and from frames split across many chunks', () => {
    const bytes = encode((out) => {
      for (const { write } of samples) write(out);
    });
    const expected = plain(samples.map((s) => s.read));
    assert.deepEqual(plain(decode(bytes)), expected);
    // A byte at a time cuts every length prefix and every field; uneven sizes cut frames at every offset.
    assert.deepEqual(plain(decode(bytes, [1])), expected);
    assert.deepEqual(plain(decode(bytes, [3, 1, 7, 2, 11])), expected);
    // A chunk that ends one frame and starts the next.
    const cut = bytes.length - 5;
    assert.deepEqual(plain(decode(bytes, [cut, 5])), expected);
  });

  it('go in one write per turn of the event loop, and a frame larger than the buffer they are gathered in goes whole', async () => {
    const sink = collector();
    const out = new MessageWriter(sink);
    const large = Buffer.alloc(200 * 1024, 7);
    out.get(1, '/a');
    out.create(2, '/b', enc('b'));
    assert.equal(sink.writes.length, 0);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    assert.equal(sink.writes.length, 1);
    out.create(3, '/c', large);
    out.get(4, '/d');
    await new Promise<void>((resolve) => process.nextTick(resolve));
    const messages = decode(sink.bytes(), [65536]);
    assert.deepEqual(
      messages.map((m) => m.kind),
      ['get', 'create', 'create', 'get'],
    );
    const third = messages[2]!;
    assert.ok(third.kind === 'create' && Buffer.from(third.value).equals(large));
  });

  it('carry a StorageError with its code, message and details, a Conflict with its current KeyValue', () => {
    const errors = [
      conflict('/r/ü', 3, kv('/r/ü', 'current value', 2, 4)),
      keyExists('/r/a'),
      compacted(3, 10),
      futureRevision(50, 12),
      new Error('disk on fire'),
    ];
    for (const error of errors) {
      const [m] = decode(
        encode((out) => {
          const blobs: Uint8Array[] = [];
          out.json({ id: 1, e: wireError(error, blobs) }, blobs);
        }),
      );
      assert.ok(m?.kind === 'json');
      const back = errorFromWire(m.header.e as WireError, m.blobs);
      if (!(error instanceof StorageError)) {
        assert.ok(isStorageError(back, 'Unavailable'));
        assert.equal(back.message, 'remote store: disk on fire');
        continue;
      }
      assert.equal(back.code, error.code);
      assert.equal(back.message, error.message);
      assert.equal(back.key, error.key);
      assert.equal(back.compactRevision, error.compactRevision);
      assert.equal(back.currentRevision, error.currentRevision);
      assert.deepEqual(plainKv(back.current), plainKv(error.current));
    }
  });

  it('copy a kept value out of a large read, and keep a value that is most of the memory it arrived in as it is', () => {
    const large = Buffer.alloc(8000, 1);
    const bytes = encode((out) => {
      out.got(1, kv('/k/small', 'small value', 1, 1));
      out.event(2, { type: 'PUT', kv: { key: '/k/large', value: large, createRevision: 2, modRevision: 2 } });
    });
    // Both frames in one read: the small value is copied, the large one (most of the read) is a view of it.
    const [got, put] = decode(bytes);
    assert.ok(got?.kind === 'got' && got.kv !== undefined);
    assert.equal(Buffer.from(got.kv.value).toString(), 'small value');
    assert.equal(got.kv.value.buffer.byteLength, got.kv.value.byteLength);
    assert.ok(put?.kind === 'event' && put.event.type === 'PUT');
    assert.equal(put.event.kv.value.buffer, bytes.buffer);
    // Split reads: the large frame is assembled in memory of its own, which its value is a view of.
    const [, split] = decode(bytes, [100, 1000]);
    assert.ok(split?.kind === 'event' && split.event.type === 'PUT');
    const value = split.event.kv.value;
    assert.ok(Buffer.from(value).equals(large));
    assert.ok(value.buffer.byteLength > value.byteLength && value.buffer.byteLength < 2 * value.byteLength);
  });

  it('refuse a frame of an unknown kind, and a frame that ends inside its fields', () => {
    const unknown = Buffer.from([1, 0, 0, 0, 99]);
    assert.throws(() => decode(unknown), /unknown frame kind 99/);
    const get = encode((out) => out.get(1, '/some/key'));
    // Claim a key longer than the frame.
    const truncated = Buffer.from(get);
    truncated.writeUInt32LE(1000, 4 + 1 + 8);
    assert.throws(() => decode(truncated), /a frame ends inside its fields/);
  });
});
