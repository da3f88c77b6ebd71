import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { constants, createDeflate, inflateSync } from 'node:zlib';
import { SPDY3_HEADER_DICTIONARY } from './dictionary.js';
import {
  decodeHeaderBlock,
  encodeFrame,
  encodeHeaderBlock,
  FLAG_FIN,
  FLAG_UNIDIRECTIONAL,
  FrameReader,
  HeaderCompressor,
  HeaderDecompressor,
  SpdyProtocolError,
  type SpdyFrame,
} from './framer.js';

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return (b * 65536 + a) >>> 0;
}

/** Header blocks as Go's spdystream writes them: zlib level 9 with the dictionary, a sync flush after each block. */
async function goStyleCompress(blocks: Buffer[]): Promise<Buffer[]> {
  const deflate = createDeflate({ level: 9, dictionary: SPDY3_HEADER_DICTIONARY });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const result: Buffer[] = [];
  for (const block of blocks) {
    deflate.write(block);
    await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
    result.push(Buffer.concat(out.splice(0)));
  }
  deflate.close();
  return result;
}

const hex = (b: Buffer): string => b.toString('hex');

const SAMPLES: SpdyFrame[] = [
  { type: 'DATA', streamId: 5, flags: 0, data: Buffer.from('hello') },
  { type: 'DATA', streamId: 0x7fffffff, flags: FLAG_FIN, data: Buffer.alloc(0) },
  { type: 'SYN_STREAM', streamId: 1, associatedToStreamId: 0, priority: 7, slot: 0, flags: FLAG_FIN | FLAG_UNIDIRECTIONAL, headerBlock: Buffer.from([1, 2, 3]) },
  { type: 'SYN_REPLY', streamId: 3, flags: FLAG_FIN, headerBlock: Buffer.from([9]) },
  { type: 'HEADERS', streamId: 3, flags: 0, headerBlock: Buffer.alloc(0) },
  { type: 'RST_STREAM', streamId: 9, status: 5 },
  { type: 'SETTINGS', flags: 1, settings: [{ flags: 1, id: 7, value: 65536 }, { flags: 0, id: 4, value: 100 }] },
  { type: 'SETTINGS', flags: 0, settings: [] },
  { type: 'PING', id: 0xfffffffe },
  { type: 'GOAWAY', lastGoodStreamId: 11, status: 1 },
  { type: 'WINDOW_UPDATE', streamId: 0, deltaWindowSize: 0x7fffffff },
  { type: 'UNKNOWN', frameType: 5, flags: 0, payload: Buffer.alloc(0) },
];

describe('SPDY/3.1 framer', () => {
  it('has the 1,423-byte SPDY/3 dictionary', () => {
    assert.equal(SPDY3_HEADER_DICTIONARY.length, 1423);
    assert.equal(adler32(SPDY3_HEADER_DICTIONARY), 3821447106);
    assert.equal(SPDY3_HEADER_DICTIONARY.subarray(0, 11).toString('latin1'), '\0\0\0\x07options');
    assert.ok(SPDY3_HEADER_DICTIONARY.toString('latin1').endsWith(',*,enq=0.'));
  });

  it('writes the wire layout of control and data frames', () => {
    assert.equal(hex(encodeFrame({ type: 'PING', id: 1 })), '80030006' + '00000004' + '00000001');
    assert.equal(hex(encodeFrame({ type: 'DATA', streamId: 3, flags: FLAG_FIN, data: Buffer.from('ab') })), '00000003' + '01000002' + '6162');
    assert.equal(hex(encodeFrame({ type: 'RST_STREAM', streamId: 1, status: 3 })), '80030003' + '00000008' + '00000001' + '00000003');
    assert.equal(hex(encodeFrame({ type: 'GOAWAY', lastGoodStreamId: 7, status: 0 })), '80030007' + '00000008' + '00000007' + '00000000');
    assert.equal(hex(encodeFrame({ type: 'WINDOW_UPDATE', streamId: 1, deltaWindowSize: 10 })), '80030009' + '00000008' + '00000001' + '0000000a');
    assert.equal(
      hex(encodeFrame({ type: 'SYN_STREAM', streamId: 1, associatedToStreamId: 0, priority: 2, slot: 0, flags: FLAG_FIN, headerBlock: Buffer.from([0xaa]) })),
      '80030001' + '0100000b' + '00000001' + '00000000' + '4000' + 'aa',
    );
    assert.equal(hex(encodeFrame({ type: 'SYN_REPLY', streamId: 2, flags: 0, headerBlock: Buffer.alloc(0) })), '80030002' + '00000004' + '00000002');
    assert.equal(hex(encodeFrame({ type: 'SETTINGS', flags: 0, settings: [{ flags: 1, id: 7, value: 2 }] })), '80030004' + '0000000c' + '00000001' + '01000007' + '00000002');
  });

  it('reads back every frame it writes', () => {
    const reader = new FrameReader();
    const frames = reader.push(Buffer.concat(SAMPLES.map(encodeFrame)));
    assert.deepEqual(frames, SAMPLES);
    assert.equal(reader.pendingBytes, 0);
  });

  it('reads frames split at every byte boundary', () => {
    const bytes = Buffer.concat(SAMPLES.map(encodeFrame));
    for (let cut = 1; cut < bytes.length; cut++) {
      const reader = new FrameReader();
      const frames = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
      assert.deepEqual(frames, SAMPLES, `cut at ${cut}`);
    }
    const reader = new FrameReader();
    const oneByOne = [...bytes].flatMap((b) => reader.push(Buffer.from([b])));
    assert.deepEqual(oneByOne, SAMPLES);
  });

  it('refuses malformed frames', () => {
    const bad = (bytes: string, pattern: RegExp): void =>
      assert.throws(() => new FrameReader().push(Buffer.from(bytes, 'hex')), (e: unknown) => e instanceof SpdyProtocolError && pattern.test(e.message));
    bad('80020006' + '00000004' + '00000001', /unsupported SPDY version 2/);
    bad('00000000' + '00000001' + '61', /DATA frame with stream id 0/);
    bad('80030003' + '00000004' + '00000001', /RST_STREAM frame has length 4, not 8/);
    bad('80030003' + '00000008' + '00000000' + '00000001', /RST_STREAM frame with stream id 0/);
    bad('80030006' + '00000005' + '0000000100', /PING frame has length 5/);
    bad('80030007' + '00000004' + '00000001', /GOAWAY frame has length 4/);
    bad('80030009' + '00000004' + '00000001', /WINDOW_UPDATE frame has length 4/);
    bad('80030004' + '00000004' + '00000002', /SETTINGS frame has length 4, not 20/);
    bad('80030004' + '00000002' + '0000', /SETTINGS frame too short/);
    bad('80030001' + '00000004' + '00000001', /SYN_STREAM frame too short/);
    bad('80030001' + '0000000a' + '00000000' + '00000000' + '0000', /SYN_STREAM frame with stream id 0/);
    bad('80030002' + '00000002' + '0000', /SYN_REPLY frame too short/);
    bad('80030008' + '00000004' + '00000000', /HEADERS frame with stream id 0/);
  });

  it('refuses a frame larger than 24 bits of length', () => {
    assert.throws(() => encodeFrame({ type: 'DATA', streamId: 1, flags: 0, data: Buffer.alloc(0x1000000) }), RangeError);
  });

  it('encodes and decodes header blocks, lower-casing names and joining values with NUL', () => {
    const block = encodeHeaderBlock({ StreamType: ['error'], port: ['8080'], multi: ['a', 'b'] });
    assert.equal(block.readUInt32BE(0), 3);
    assert.deepEqual(decodeHeaderBlock(block), { streamtype: ['error'], port: ['8080'], multi: ['a', 'b'] });
    assert.ok(block.includes(Buffer.from('a\0b')));
    assert.deepEqual(decodeHeaderBlock(encodeHeaderBlock({})), {});
  });

  it('refuses truncated header blocks and trailing bytes', () => {
    const block = encodeHeaderBlock({ a: ['b'] });
    assert.throws(() => decodeHeaderBlock(block.subarray(0, block.length - 1)), /ends early/);
    assert.throws(() => decodeHeaderBlock(Buffer.concat([block, Buffer.from([0])])), /after its last header/);
    assert.throws(() => decodeHeaderBlock(Buffer.from('00000001' + '00000000' + '00000000', 'hex')), /empty name/);
  });

  it('compresses header blocks into one zlib stream any inflater reads', () => {
    const compressor = new HeaderCompressor();
    const a = encodeHeaderBlock({ streamtype: ['error'] });
    const b = encodeHeaderBlock({ streamtype: ['stdout'], x: ['y'.repeat(70_000)] });
    const first = compressor.compress(a);
    const second = compressor.compress(b);
    assert.deepEqual([...first.subarray(0, 2)], [0x78, 0x01]);
    assert.notDeepEqual([...second.subarray(0, 2)], [0x78, 0x01]);
    const inflated = inflateSync(Buffer.concat([first, second]), { finishFlush: constants.Z_SYNC_FLUSH, dictionary: SPDY3_HEADER_DICTIONARY });
    assert.deepEqual(inflated, Buffer.concat([a, b]));
    // Each block ends with the sync-flush marker Go's inflater needs to hand out the block's last bytes.
    assert.deepEqual([...first.subarray(-5)], [0x00, 0x00, 0x00, 0xff, 0xff]);
    assert.equal(hex(compressor.compress(encodeHeaderBlock({}))), '000400fbff' + '00000000' + '000000ffff');
  });

  it('inflates header blocks compressed as Go does, block after block, and its own', async () => {
    const blocks = [
      encodeHeaderBlock({ streamtype: ['error'], port: ['80'], requestid: ['0'] }),
      encodeHeaderBlock({ streamtype: ['data'], port: ['80'], requestid: ['0'] }),
      encodeHeaderBlock({}),
    ];
    const decompressor = new HeaderDecompressor();
    const compressed = await goStyleCompress(blocks);
    const results = await Promise.all(compressed.map((c) => decompressor.decompress(c)));
    assert.deepEqual(results, blocks);
    decompressor.close();

    const mine = new HeaderDecompressor();
    const compressor = new HeaderCompressor();
    for (const block of blocks) assert.deepEqual(await mine.decompress(compressor.compress(block)), block);
    mine.close();
  });

  it('rejects a header block that does not inflate, and every one after it', async () => {
    const decompressor = new HeaderDecompressor();
    await assert.rejects(decompressor.decompress(Buffer.from('not zlib at all')), (e: unknown) => e instanceof SpdyProtocolError && /does not inflate/.test(e.message));
    await assert.rejects(decompressor.decompress(new HeaderCompressor().compress(encodeHeaderBlock({}))), SpdyProtocolError);
    decompressor.close();
  });
});
