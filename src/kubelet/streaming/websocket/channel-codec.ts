/**
 * The channel framing of Kubernetes' WebSocket subprotocols (upstream's
 * wsstream): each message starts with its channel number, as one byte
 * (channel.k8s.io, v4.channel.k8s.io, v5.channel.k8s.io, portforward.k8s.io)
 * or as one ASCII digit followed by base64 text (base64.channel.k8s.io,
 * v4.base64.channel.k8s.io). v5 adds a client signal: the two bytes
 * [255, channel] close that channel (the client's stdin ended).
 */

export const STREAM_CLOSE_SIGNAL = 255;

export interface ChannelCodec {
  /** The negotiated subprotocol ('' when the client asked for none). */
  readonly protocol: string;
  readonly binary: boolean;
  /** Whether [255, channel] messages close a channel (v5). */
  readonly closeSignal: boolean;
}

export type DecodedMessage =
  | { readonly kind: 'data'; readonly channel: number; readonly data: Buffer }
  | { readonly kind: 'close'; readonly channel: number }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Codec of a subprotocol: base64 for the *.base64.* protocols, bytes otherwise. */
export function channelCodec(protocol: string): ChannelCodec {
  return { protocol, binary: !protocol.includes('base64'), closeSignal: /^v5\./.test(protocol) };
}

/** One message carrying `data` on `channel`: a Buffer to send as binary, or a string to send as text. */
export function encodeChannelMessage(codec: ChannelCodec, channel: number, data: Buffer): Buffer | string {
  if (codec.binary) return Buffer.concat([Buffer.from([channel]), data]);
  return String.fromCharCode(0x30 + channel) + data.toString('base64');
}

export function decodeChannelMessage(codec: ChannelCodec, message: Buffer): DecodedMessage {
  if (message.length === 0) return { kind: 'invalid', reason: 'empty message' };
  if (codec.closeSignal && message[0] === STREAM_CLOSE_SIGNAL) {
    if (message.length !== 2) return { kind: 'invalid', reason: `a close signal carries one channel byte, not ${message.length - 1}` };
    return { kind: 'close', channel: message[1]! };
  }
  if (codec.binary) return { kind: 'data', channel: message[0]!, data: message.subarray(1) };
  const channel = message[0]! - 0x30;
  const text = message.subarray(1).toString('latin1');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return { kind: 'invalid', reason: 'the message is not base64' };
  return { kind: 'data', channel, data: Buffer.from(text, 'base64') };
}
