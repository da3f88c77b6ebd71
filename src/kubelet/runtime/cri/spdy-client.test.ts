import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { constants, inflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { connectSpdy, encodeHeaderBlock, storedDeflateBlocks } from './spdy-client.js';
import { exitCodeOfStatus } from './cri-streams.js';

const ZLIB_HEADER = Buffer.from([0x78, 0x01]);

describe('SPDY client pieces', () => {
  it('encodes name/value blocks with lowercase names', () => {
    const block = encodeHeaderBlock({ streamType: 'error' });
    assert.equal(block.readUInt32BE(0), 1);
    assert.equal(block.readUInt32BE(4), 10);
    assert.equal(block.subarray(8, 18).toString(), 'streamtype');
    assert.equal(block.readUInt32BE(18), 5);
    assert.equal(block.subarray(22).toString(), 'error');
  });

  it('writes header blocks as one zlib stream of stored blocks, each ending in a sync marker', () => {
    const first = storedDeflateBlocks(Buffer.from('first block'));
    assert.deepEqual(first.subarray(-5), Buffer.from([0, 0, 0, 0xff, 0xff]));
    const big = Buffer.alloc(70_000, 0x61);
    const stream = Buffer.concat([ZLIB_HEADER, first, storedDeflateBlocks(big)]);
    const inflated = inflateSync(stream, { finishFlush: constants.Z_SYNC_FLUSH });
    assert.deepEqual(inflated, Buffer.concat([Buffer.from('first block'), big]));
  });

  it('reads exit codes from remotecommand v4 statuses', () => {
    assert.deepEqual(exitCodeOfStatus(''), { code: 0, message: '' });
    assert.deepEqual(exitCodeOfStatus('{"metadata":{},"status":"Success"}'), { code: 0, message: '' });
    assert.deepEqual(
      exitCodeOfStatus('{"status":"Failure","message":"command terminated with non-zero exit code","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"5"}]}}'),
      { code: 5, message: 'command terminated with non-zero exit code' },
    );
    assert.deepEqual(exitCodeOfStatus('{"status":"Failure","message":"container not running"}'), { code: undefined, message: 'container not running' });
    assert.deepEqual(exitCodeOfStatus('not json'), { code: undefined, message: 'not json' });
  });

  /** A one-shot HTTP server on loopback that answers the upgrade with `reply` and hands over the socket. */
  async function upgradeServer(reply: string): Promise<{ url: string; socket: Promise<Socket>; close(): void }> {
    let resolveSocket!: (s: Socket) => void;
    const socket = new Promise<Socket>((resolve) => (resolveSocket = resolve));
    const server = createServer((s) => {
      s.once('data', () => {
        s.write(reply);
        resolveSocket(s);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/exec/x`, socket, close: () => server.close() };
  }

  it('opens streams, exchanges data frames, answers PING and ends a stream on FIN or RST', async () => {
    const srv = await upgradeServer('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n');
    try {
      const session = await connectSpdy(srv.url, ['v4.channel.k8s.io']);
      assert.equal(session.protocol, 'v4.channel.k8s.io');
      const peer = await srv.socket;
      const received: Buffer[] = [];
      peer.on('data', (c: Buffer) => received.push(c));
      const a = session.openStream({ streamtype: 'stdout' });
      const b = session.openStream({ streamtype: 'stdin' });
      assert.deepEqual([a.id, b.id], [1, 3]);
      b.end('hi');
      const frame = (head: number[], payload: Buffer) => Buffer.concat([Buffer.from(head), payload]);
      // data "out" with FIN on stream 1, a PING, RST_STREAM(CANCEL) on stream 3
      peer.write(frame([0, 0, 0, 1, 0x01, 0, 0, 3], Buffer.from('out')));
      peer.write(frame([0x80, 3, 0, 6, 0, 0, 0, 4], Buffer.from([0, 0, 0, 7])));
      peer.write(frame([0x80, 3, 0, 3, 0, 0, 0, 8], Buffer.from([0, 0, 0, 3, 0, 0, 0, 5])));
      const chunks: Buffer[] = [];
      for await (const c of a) chunks.push(c as Buffer);
      assert.equal(Buffer.concat(chunks).toString(), 'out');
      for await (const _ of b) assert.fail('a reset stream has nothing to read');
      assert.equal(b.resetStatus, 5);
      b.write('dropped');
      const deadline = Date.now() + 5_000;
      while (!Buffer.concat(received).includes(Buffer.from([0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 7])) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const all = Buffer.concat(received);
      assert.ok(all.includes(Buffer.from([0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 7])), 'the PING is echoed');
      assert.ok(all.includes(Buffer.from([0, 0, 0, 3, 0, 0, 0, 2, 0x68, 0x69])), 'stdin data frame on stream 3');
      assert.ok(all.includes(Buffer.from([0, 0, 0, 3, 0x01, 0, 0, 0])), 'FIN on stream 3');
      assert.ok(!all.includes(Buffer.from('dropped')));
      session.close();
      await session.closed;
    } finally {
      srv.close();
    }
  });

  it('fails when the server does not upgrade, with its status and body', async () => {
    const srv = await upgradeServer('HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\nConnection: close\r\n\r\nno such session');
    try {
      await assert.rejects(connectSpdy(srv.url, ['v4.channel.k8s.io']), /answered 404 instead of upgrading: no such session/);
    } finally {
      srv.close();
    }
  });
});
