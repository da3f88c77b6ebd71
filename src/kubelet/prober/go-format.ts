/**
 * Go's spelling of the things that appear in upstream's probe messages, so
 * that events read byte for byte as a real kubelet's: `%q` strings, `%v`
 * durations ("1s", "1m30s", "250ms"), gRPC code names ("NotFound") and the
 * net package's dial errors ("dial tcp 127.0.0.1:1: connect: connection
 * refused").
 */

/** Go's `%q` for a string (JSON's escaping, which agrees for printable text). */
export const goQuote = (s: string): string => JSON.stringify(s);

const trimNumber = (n: number): string => String(Number(n.toFixed(9)));

/** Go's `time.Duration.String()` for a non-negative number of milliseconds. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1) return `${trimNumber(ms * 1000)}µs`;
  if (ms < 1000) return `${trimNumber(ms)}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = `${trimNumber((ms % 60_000) / 1000)}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

/** `host:port`, with brackets around an IPv6 host (Go's net.JoinHostPort). */
export const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

const GRPC_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

/** grpc-go's `codes.Code.String()`. */
export const grpcCodeName = (code: number): string => GRPC_CODE_NAMES[code] ?? `Code(${code})`;

/** The text after `connect: ` (or the whole error) that Go's syscall errors print. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connect: connection refused',
  ECONNRESET: 'read: connection reset by peer',
  EHOSTUNREACH: 'connect: no route to host',
  ENETUNREACH: 'connect: network is unreachable',
  EADDRNOTAVAIL: 'connect: cannot assign requested address',
  ETIMEDOUT: 'connect: connection timed out',
  EPIPE: 'write: broken pipe',
};

/**
 * A Node socket error as Go's *net.OpError prints it for a dial to `address`
 * (`dial tcp 127.0.0.1:8080: connect: connection refused`); `timedOut` gives
 * Go's `i/o timeout`.
 */
export function goDialError(address: string, error: unknown, timedOut = false): string {
  if (timedOut) return `dial tcp ${address}: i/o timeout`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    return `dial tcp: lookup ${host}: no such host`;
  }
  const text = code !== undefined ? ERRNO_TEXT[code] : undefined;
  if (text !== undefined) return `dial tcp ${address}: ${text}`;
  return `dial tcp ${address}: ${error instanceof Error ? error.message : String(error)}`;
}
