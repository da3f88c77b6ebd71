/**
 * CIDR arithmetic on IPv4 and IPv6 ranges, with addresses as bigints: what the
 * service IP allocator and the node IPAM need (the n-th address of a range,
 * whether an address is inside it, how many it holds).
 *
 * @example
 *   const range = parseCidr('127.96.0.0/12');
 *   formatAddress(range, range.network + 1n) // '127.96.0.1'
 */
import { isIP } from 'node:net';

export interface Cidr {
  readonly family: 4 | 6;
  /** The network address (host bits zero). */
  readonly network: bigint;
  readonly prefixLength: number;
  /** Number of addresses in the range. */
  readonly size: bigint;
}

export function parseAddress(text: string): { family: 4 | 6; value: bigint } | undefined {
  const family = isIP(text);
  if (family === 4) {
    return { family: 4, value: text.split('.').reduce((acc, octet) => (acc << 8n) + BigInt(Number(octet)), 0n) };
  }
  if (family === 6) {
    const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
    const parse = (part: string | undefined): number[] => {
      if (part === undefined || part === '') return [];
      const groups: number[] = [];
      for (const g of part.split(':')) {
        if (g.includes('.')) {
          const v4 = parseAddress(g);
          if (v4 === undefined) return [];
          groups.push(Number(v4.value >> 16n), Number(v4.value & 0xffffn));
        } else {
          groups.push(parseInt(g, 16));
        }
      }
      return groups;
    };
    const h = parse(head);
    const t = parse(tail);
    const groups = tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
    return { family: 6, value: groups.reduce((acc, g) => (acc << 16n) + BigInt(g), 0n) };
  }
  return undefined;
}

export function parseCidr(text: string): Cidr {
  const slash = text.indexOf('/');
  if (slash < 0) throw new Error(`invalid CIDR "${text}": missing prefix length`);
  const address = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  const bits = address?.family === 6 ? 128 : 32;
  const prefixLength = Number(prefixText);
  if (address === undefined || !/^\d+$/.test(prefixText) || prefixLength > bits) throw new Error(`invalid CIDR "${text}"`);
  const hostBits = BigInt(bits - prefixLength);
  const network = (address.value >> hostBits) << hostBits;
  return { family: address.family, network, prefixLength, size: 1n << hostBits };
}

export function formatAddress(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  // Compress the longest run of zero groups, as RFC 5952 writes it.
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLength).join(':')}`;
}

export function contains(cidr: Cidr, address: string): boolean {
  const a = parseAddress(address);
  return a !== undefined && a.family === cidr.family && a.value >= cidr.network && a.value < cidr.network + cidr.size;
}

/** The address at `offset` from the network address. */
export function addressAt(cidr: Cidr, offset: bigint): string {
  if (offset < 0n || offset >= cidr.size) throw new Error(`offset ${offset} outside a range of ${cidr.size} addresses`);
  return formatAddress(cidr.family, cidr.network + offset);
}
