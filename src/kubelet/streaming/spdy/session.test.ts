import { waitFor } from '../../../client/testing/wait-for.js';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Duplex, PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { decodeHeaderBlock, encodeFrame, encodeHeaderBlock, FLAG_FIN, FrameReader, HeaderCompressor, HeaderDecompressor, RST_STATUS, type SpdyFrame } from './framer.js';
import { SpdySession, type SpdyStream } from './session.js';

/** A client end: writes frames to the session, reads the frames it answers. */
function pair(options: { accept?: (h: Readonly<Record<string, readonly string[]>>) => Error | void } = {}) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const transport = Duplex.from({ readable: toServer, writable: fromServer });
  const streams: SpdyStream[] = [];
  const session = new SpdySession(transport, { ...options, onStream: (s) => streams.push(s) });
  const reader = new FrameReader();
  const received: SpdyFrame[] = [];
  fromServer.on('data', (c: Buffer) => received.push(...reader.push(c)));
  const compressor = new HeaderCompressor();
  const send = (frame: SpdyFrame): void => void toServer.write(encodeFrame(frame));
  const open = (id: number, headers: Record<string, string[]>, flags = 0): void =>
    send({ type: 'SYN_STREAM', streamId: id, associatedToStreamId: 0, priority: 0, slot: 0, flags, headerBlock: compressor.compress(encodeHeaderBlock(headers)) });
  const until = async (check: () => boolean): Promise<void> => {
    await waitFor(check, { timeoutMs: 10_000, intervalMs: 5, description: 'the SPDY session to get there' });
  };
  return { session, streams, received, send, open, until, toServer };
}

describe('SPDY session', () => {
  it('replies to a new stream and carries data both ways, with FIN', async () => {
    const c = pair();
    c.open(1, { streamtype: ['stdout'], port: ['80'] });
    await c.until(() => c.streams.length === 1);
    const stream = c.streams[0]!;
    assert.equal(stream.header('streamType'), 'stdout');
    const reply = c.received.find((f) => f.type === 'SYN_REPLY');
    assert.ok(reply !== undefined && reply.type === 'SYN_REPLY' && reply.streamId === 1);
    const decompressor = new HeaderDecompressor();
    assert.deepEqual(decodeHeaderBlock(await decompressor.decompress(reply.headerBlock)), {});
    decompressor.close();
    c.send({ type: 'DATA', streamId: 1, flags: FLAG_FIN, data: Buffer.from('in') });
    const chunks: Buffer[] = [];
    stream.on('data', (b: Buffer) => chunks.push(b));
    await once(stream, 'end');
    assert.equal(Buffer.concat(chunks).toString(), 'in');
    stream.end('out');
    await c.until(() => c.received.some((f) => f.type === 'DATA' && (f.flags & FLAG_FIN) !== 0));
    const data = c.received.filter((f) => f.type === 'DATA');
    assert.equal(Buffer.concat(data.map((f) => (f.type === 'DATA' ? f.data : Buffer.alloc(0)))).toString(), 'out');
    assert.equal(c.session.openStreams, 0);
  });

  it('refuses a stream its accept check rejects, with RST_STREAM REFUSED_STREAM', async () => {
    const c = pair({ accept: (h) => (h.port === undefined ? new Error('"port" header is required') : undefined) });
    c.open(1, { streamtype: ['data'] });
    await c.until(() => c.received.length > 0);
    assert.deepEqual(c.received[0], { type: 'RST_STREAM', streamId: 1, status: RST_STATUS.REFUSED_STREAM });
    assert.equal(c.streams.length, 0);
  });

  it('ends a stream the client resets', async () => {
    const c = pair();
    c.open(1, { streamtype: ['data'] });
    await c.until(() => c.streams.length === 1);
    c.send({ type: 'RST_STREAM', streamId: 1, status: RST_STATUS.CANCEL });
    await once(c.streams[0]!, 'close');
    assert.equal(c.streams[0]!.resetStatus, RST_STATUS.CANCEL);
  });

  it('echoes the client\'s pings and ignores SETTINGS and WINDOW_UPDATE', async () => {
    const c = pair();
    c.send({ type: 'SETTINGS', flags: 0, settings: [{ flags: 0, id: 7, value: 1 }] });
    c.send({ type: 'WINDOW_UPDATE', streamId: 0, deltaWindowSize: 100 });
    c.send({ type: 'PING', id: 1 });
    await c.until(() => c.received.length > 0);
    assert.deepEqual(c.received, [{ type: 'PING', id: 1 }]);
  });

  it('answers a protocol error with GOAWAY PROTOCOL_ERROR and closes', async () => {
    const c = pair();
    const closed = once(c.session, 'close');
    c.open(2, { streamtype: ['data'] });
    await closed;
    assert.deepEqual(c.received.at(-1), { type: 'GOAWAY', lastGoodStreamId: 0, status: 1 });
  });

  it('closes with GOAWAY and resets the streams still open', async () => {
    const c = pair();
    c.open(1, { streamtype: ['error'] });
    await c.until(() => c.streams.length === 1);
    c.session.close();
    await c.until(() => c.received.some((f) => f.type === 'RST_STREAM'));
    assert.deepEqual(
      c.received.filter((f) => f.type !== 'SYN_REPLY'),
      [
        { type: 'GOAWAY', lastGoodStreamId: 1, status: 0 },
        { type: 'RST_STREAM', streamId: 1, status: RST_STATUS.CANCEL },
      ],
    );
  });
});
