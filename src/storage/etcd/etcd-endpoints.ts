import { invalidArgument } from '../errors.js';

/** Where a gRPC channel to etcd should connect. */
export interface EtcdTarget {
  /** A gRPC target: `host:port`, or `ipv4:a:p,b:p` / `ipv6:[a]:p,…` for several members. */
  readonly target: string;
  /** True for https:// endpoints (TLS). */
  readonly secure: boolean;
}

const DEFAULT_PORT = '2379';

/**
 * Turn `--etcd-servers` style URLs (`http://127.0.0.1:2379`, `https://10.0.0.5:2379`)
 * into one gRPC target. Several endpoints become one channel whose pick-first
 * policy tries them in order and fails over; grpc-js can only list IP addresses
 * that way, so several endpoints must all be IP literals of one family and one
 * scheme. Anything else is rejected with InvalidArgument.
 */
export function parseEtcdEndpoints(endpoints: readonly string[]): EtcdTarget {
  if (endpoints.length === 0) throw invalidArgument('no etcd endpoint given');
  const parsed = endpoints.map((endpoint) => {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw invalidArgument(`etcd endpoint "${endpoint}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw invalidArgument(`etcd endpoint "${endpoint}" must start with http:// or https://`);
    }
    if (url.pathname !== '/' && url.pathname !== '') {
      throw invalidArgument(`etcd endpoint "${endpoint}" must not have a path`);
    }
    const host = url.hostname; // IPv6 stays bracketed: "[::1]"
    const family = host.startsWith('[') ? 'ipv6' : /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? 'ipv4' : 'dns';
    return { secure: url.protocol === 'https:', hostPort: `${host}:${url.port || DEFAULT_PORT}`, family };
  });
  const first = parsed[0]!;
  if (parsed.some((p) => p.secure !== first.secure)) {
    throw invalidArgument(`etcd endpoints mix http and https: ${endpoints.join(', ')}`);
  }
  if (parsed.length === 1) return { target: first.hostPort, secure: first.secure };
  if (first.family === 'dns' || parsed.some((p) => p.family !== first.family)) {
    throw invalidArgument(
      `several etcd endpoints must all be IP addresses of one family (got ${endpoints.join(', ')}); ` +
        'give one DNS name that resolves to every member instead',
    );
  }
  return { target: `${first.family}:${parsed.map((p) => p.hostPort).join(',')}`, secure: first.secure };
}
