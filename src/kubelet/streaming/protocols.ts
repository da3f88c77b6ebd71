/**
 * The streaming protocol names, as upstream's k8s.io/apimachinery
 * util/remotecommand and util/portforward define them, and the negotiation of
 * X-Stream-Protocol-Version (SPDY) and Sec-WebSocket-Protocol (WebSocket).
 */

/** remotecommand (exec, attach) over SPDY, newest first: v4 carries the exit code in a Status on the error stream. */
export const REMOTECOMMAND_SPDY_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'] as const;
export const PORTFORWARD_PROTOCOL = 'portforward.k8s.io';
/** port-forward's SPDY frames inside WebSocket binary messages (kubectl 1.31+). */
export const PORTFORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';

export const HEADER_PROTOCOL_VERSION = 'x-stream-protocol-version';
export const HEADER_ACCEPTED_PROTOCOL_VERSIONS = 'x-accepted-stream-protocol-versions';

/** Values of a header sent as several lines or comma-separated (Node joins repeated lines with ", "). */
export function headerValues(value: string | string[] | undefined): string[] {
  const lines = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return lines.flatMap((line) => line.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** Upstream's negotiateProtocol: the first of the client's protocols the server supports. */
export function negotiateProtocol(client: readonly string[], server: readonly string[]): string | undefined {
  return client.find((p) => server.includes(p));
}

/** The version number of a remotecommand protocol name (channel.k8s.io is 1). */
export function remoteCommandVersion(protocol: string): number {
  const match = /^v(\d+)\.(base64\.)?channel\.k8s\.io$/.exec(protocol);
  return match === null ? 1 : Number(match[1]);
}
