/**
 * The addresses the userspace proxy binds node ports on, from upstream's
 * --nodeport-addresses: a list of CIDRs (a bare IP counts as its /32 or
 * /128) or the word `primary`, matched against the node's IPs. Empty means
 * the node IPs themselves (DESIGN §5: node ports are bound on node IPs;
 * upstream's netfilter modes take every local address instead, which on a
 * machine with several loopback nodes would collide).
 */
import { isIP, isIPv4 } from 'node:net';

export class NodePortAddressesError extends Error {}

function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  if (base === undefined) return false;
  if (isIP(base) === 0) throw new NodePortAddressesError(`invalid --nodeport-addresses entry "${cidr}": not an IP or CIDR`);
  if (isIPv4(base) !== isIPv4(ip)) return false;
  const maxBits = isIPv4(base) ? 32 : 128;
  const bits = bitsText === undefined ? maxBits : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > maxBits || (bitsText !== undefined && !/^\d+$/.test(bitsText))) {
    throw new NodePortAddressesError(`invalid --nodeport-addresses entry "${cidr}": bad prefix length`);
  }
  if (!isIPv4(ip)) return bits === 128 ? ip.toLowerCase() === base.toLowerCase() : bits === 0;
  if (bits === 0) return true;
  const mask = bits === 32 ? 0xffffffff : (~0 << (32 - bits)) >>> 0;
  return ((ipv4ToNumber(ip) & mask) >>> 0) === ((ipv4ToNumber(base) & mask) >>> 0);
}

/**
 * The node IPs selected by `entries`. A bare IP that is not a node IP is
 * taken as given (the user names an address of this machine to bind).
 */
export function nodePortAddresses(entries: readonly string[], nodeIPs: readonly string[]): string[] {
  if (entries.length === 0) return [...nodeIPs];
  const out = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry === 'primary') {
      if (nodeIPs[0] !== undefined) out.add(nodeIPs[0]);
      continue;
    }
    if (!entry.includes('/') && isIP(entry) !== 0) {
      out.add(entry);
      continue;
    }
    for (const ip of nodeIPs) if (inCidr(ip, entry)) out.add(ip);
  }
  return [...out];
}
