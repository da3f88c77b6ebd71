/**
 * Which addresses the API server proxies to (upstream's IsProxyableIP: a
 * global unicast address, "address not allowed" otherwise). One difference:
 * loopback is allowed, because the process runtime gives pods addresses in
 * 127.0.0.0/8 (--cluster-cidr 127.244.0.0/16) and the API server reaches
 * them there; unspecified, link-local, multicast and broadcast addresses
 * stay refused.
 */
import { isIPv4, isIPv6 } from 'node:net';

export const ADDRESS_NOT_ALLOWED = 'address not allowed';

export function isProxyableIP(ip: string): boolean {
  if (isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    if (a === 0 || (a === 169 && b === 254) || a >= 224) return false;
    return true;
  }
  if (isIPv6(ip)) {
    const lower = ip.toLowerCase();
    if (/^(0*:)*:?0*$/.test(lower) || lower === '::') return false;
    const first = parseInt(lower.startsWith('::') ? '0' : lower.split(':')[0]!, 16);
    if ((first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00) return false;
    return true;
  }
  return false;
}
