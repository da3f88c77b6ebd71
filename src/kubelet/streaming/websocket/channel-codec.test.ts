import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelCodec, decodeChannelMessage, encodeChannelMessage } from './channel-codec.js';

describe('WebSocket channel codec', () => {
  it('prefixes binary messages with the channel byte', () => {
    const codec = channelCodec('v4.channel.k8s.io');
    assert.deepEqual(encodeChannelMessage(codec, 1, Buffer.from('hi')), Buffer.from([1, 0x68, 0x69]));
    assert.deepEqual(decodeChannelMessage(codec, Buffer.from([0, 0x61])), { kind: 'data', channel: 0, data: Buffer.from('a') });
    assert.deepEqual(encodeChannelMessage(channelCodec(''), 3, Buffer.alloc(0)), Buffer.from([3]));
  });

  it('writes base64 text after an ASCII channel digit', () => {
    const codec = channelCodec('v4.base64.channel.k8s.io');
    assert.equal(codec.binary, false);
    assert.equal(encodeChannelMessage(codec, 1, Buffer.from('foo\n')), '1Zm9vCg==');
    assert.deepEqual(decodeChannelMessage(codec, Buffer.from('0Zm9vCg==')), { kind: 'data', channel: 0, data: Buffer.from('foo\n') });
    assert.deepEqual(decodeChannelMessage(codec, Buffer.from('0not base64!')), { kind: 'invalid', reason: 'the message is not base64' });
  });

  it('reads the v5 close signal, and only in v5', () => {
    const v5 = channelCodec('v5.channel.k8s.io');
    assert.equal(v5.closeSignal, true);
    assert.deepEqual(decodeChannelMessage(v5, Buffer.from([255, 0])), { kind: 'close', channel: 0 });
    assert.equal(decodeChannelMessage(v5, Buffer.from([255, 0, 1])).kind, 'invalid');
    const v4 = channelCodec('v4.channel.k8s.io');
    assert.deepEqual(decodeChannelMessage(v4, Buffer.from([255, 0])), { kind: 'data', channel: 255, data: Buffer.from([0]) });
  });

  it('refuses an empty message', () => {
    assert.equal(decodeChannelMessage(channelCodec('channel.k8s.io'), Buffer.alloc(0)).kind, 'invalid');
  });
});
