/**
 * HTTP/1.1 upgrades as the streaming endpoints see them: which kind of
 * upgrade a request asks for, and the raw responses written on the socket
 * (101 Switching Protocols, or an error in the shape of Go's http.Error:
 * text/plain, the message and a newline).
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';


const tokens = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value.join(',') : (value ?? '')).split(',').map((t) => t.trim().toLowerCase());

/** Connection: Upgrade (upstream's httpstream.IsUpgradeRequest). */
export function isUpgradeRequest(req: IncomingMessage): boolean {
  return tokens(req.headers.connection).some((t) => t.includes('upgrade'));
}

export function isWebSocketRequest(req: IncomingMessage): boolean {
  return isUpgradeRequest(req) && tokens(req.headers.upgrade).includes('websocket');
}

export function isSpdyRequest(req: IncomingMessage): boolean {
  return isUpgradeRequest(req) && tokens(req.headers.upgrade).some((t) => t.includes('spdy/3.1'));
}

function head(code: number, headers: Readonly<Record<string, string | readonly string[]>>): string {
  const lines = [`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of typeof value === 'string' ? [value] : value) lines.push(`${name}: ${v}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export function writeSwitchingProtocols(socket: Duplex, headers: Readonly<Record<string, string | readonly string[]>>): void {
  socket.write(head(101, { Connection: 'Upgrade', ...headers }));
}

/** An error response on a socket that was not upgraded, then the end of the connection. */
export function writeHttpError(socket: Duplex, code: number, message: string, headers: Readonly<Record<string, string | readonly string[]>> = {}): void {
  const body = `${message}\n`;
  socket.end(
    head(code, {
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      ...headers,
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    }) + body,
  );
}
