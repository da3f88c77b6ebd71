/**
 * exec and attach over a WebSocket (kubectl 1.30+ with v5.channel.k8s.io,
 * and the client libraries with v4/base64 variants): channel 0 stdin, 1
 * stdout, 2 stderr, 3 the error Status, 4 terminal sizes. As upstream's
 * kubelet, the server first sends an empty message on the lowest channel it
 * writes (stdout, else stderr, else error) to say the session is open.
 */
import type { WebSocket } from 'ws';
import { remoteCommandVersion } from '../protocols.js';
import { channelCodec } from '../websocket/channel-codec.js';
import { WebSocketChannels } from '../websocket/channels.js';
import type { RemoteCommandFlags } from './spdy.js';
import type { RemoteCommandStreams } from './serve.js';
import { encodeStatus } from './status.js';

/** The remotecommand WebSocket subprotocols, preferred first ('' when the client names none). */
export const REMOTECOMMAND_WEBSOCKET_PROTOCOLS = [
  'v5.channel.k8s.io',
  'v4.channel.k8s.io',
  'v4.base64.channel.k8s.io',
  'channel.k8s.io',
  'base64.channel.k8s.io',
] as const;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

export function webSocketRemoteCommandStreams(ws: WebSocket, protocol: string, flags: RemoteCommandFlags): RemoteCommandStreams {
  const version = protocol === '' ? 1 : remoteCommandVersion(protocol);
  const channels = new WebSocketChannels(ws, channelCodec(protocol), [STDIN, RESIZE]);
  channels.send(flags.stdout ? STDOUT : flags.stderr ? STDERR : ERROR, Buffer.alloc(0));
  return {
    ...(flags.stdin ? { stdin: channels.reader(STDIN) } : {}),
    ...(flags.stdout ? { stdout: channels.writer(STDOUT) } : {}),
    ...(flags.stderr ? { stderr: channels.writer(STDERR) } : {}),
    ...(flags.tty ? { resize: channels.reader(RESIZE) } : {}),
    writeStatus: (status) =>
      new Promise<void>((resolve) => {
        const bytes = encodeStatus(status, version);
        if (bytes === undefined) resolve();
        else channels.send(ERROR, bytes, () => resolve());
      }),
    close: () => channels.close(),
    closed: channels.closed,
  };
}
