/**
 * IP addresses and CIDRs parsed and printed as upstream's Go does, so that
 * IP validation accepts, rejects and rewrites exactly what upstream does.
 *
 * Upstream parses twice: first "sloppily" (k8s.io/utils/net ParseIPSloppy and
 * ParseCIDRSloppy, Go 1.16's net parser, which allows leading zeros in IPv4
 * octets and long hex groups), then strictly (net/netip), which does not. One
 * parse here yields both answers.
 */

/** A parsed address: 16 bytes (IPv4 as IPv4-mapped IPv6, as Go's net.IP holds it). */
export interface ParsedIP {
  readonly bytes: Uint8Array;
  /** Written as dotted IPv4 (`1.2.3.4`), not as IPv6 text. */
  readonly v4Literal: boolean;
  /** Whether net/netip would also accept the text (no leading zeros, at most 4 hex digits a group). */
  readonly strict: boolean;
}

/** A parsed CIDR. */
export interface ParsedCIDR {
  readonly ip: ParsedIP;
  /** The prefix length, in bits of the address as written (at most 32 for IPv4, 128 for IPv6). */
  readonly bits: number;
  /** Whether net/netip's ParsePrefix would also accept the text. */
  readonly strict: boolean;
}

const BIG = 0xffffff;

interface Digits {
  readonly value: number;
  readonly length: number;
}

function decimal(s: string, at: number): Digits | undefined {
  let value = 0;
  let i = at;
  for (; i < s.length && s[i]! >= '0' && s[i]! <= '9'; i++) {
    value = value * 10 + (s.charCodeAt(i) - 48);
    if (value >= BIG) return undefined;
  }
  return i === at ? undefined : { value, length: i - at };
}

function hexadecimal(s: string, at: number): Digits | undefined {
  let value = 0;
  let i = at;
  for (; i < s.length; i++) {
    const d = parseInt(s[i]!, 16);
    if (Number.isNaN(d)) break;
    value = value * 16 + d;
    if (value >= BIG) return undefined;
  }
  return i === at ? undefined : { value, length: i - at };
}

interface V4 {
  readonly octets: number[];
  readonly strict: boolean;
}

function parseV4(s: string): V4 | undefined {
  const octets: number[] = [];
  let strict = true;
  let at = 0;
  for (let i = 0; i < 4; i++) {
    if (at >= s.length) return undefined;
    if (i > 0) {
      if (s[at] !== '.') return undefined;
      at++;
    }
    const d = decimal(s, at);
    if (d === undefined || d.value > 0xff) return undefined;
    if (d.length > 1 && s[at] === '0') strict = false;
    octets.push(d.value);
    at += d.length;
  }
  return at === s.length ? { octets, strict } : undefined;
}

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function fromV4(v4: V4): ParsedIP {
  return { bytes: Uint8Array.from([...V4_MAPPED_PREFIX, ...v4.octets]), v4Literal: true, strict: v4.strict };
}

function parseV6(input: string): ParsedIP | undefined {
  const ip = new Uint8Array(16);
  let s = input;
  let strict = true;
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, v4Literal: false, strict };
  }
  let i = 0;
  while (i < 16) {
    const h = hexadecimal(s, 0);
    if (h === undefined || h.value > 0xffff) return undefined;
    if (h.length > 4) strict = false;
    if (h.length < s.length && s[h.length] === '.') {
      if ((ellipsis < 0 && i !== 12) || i + 4 > 16) return undefined;
      const v4 = parseV4(s);
      if (v4 === undefined) return undefined;
      ip.set(v4.octets, i);
      if (!v4.strict) strict = false;
      s = '';
      i += 4;
      break;
    }
    ip[i] = h.value >> 8;
    ip[i + 1] = h.value & 0xff;
    i += 2;
    s = s.slice(h.length);
    if (s.length === 0) break;
    if (s[0] !== ':' || s.length === 1) return undefined;
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - i;
    ip.copyWithin(ellipsis + n, ellipsis, i);
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    return undefined;
  }
  return { bytes: ip, v4Literal: false, strict };
}

/** Parses an IP as upstream's ParseIPSloppy: the first `.` or `:` decides the family. */
export function parseIP(s: string): ParsedIP | undefined {
  for (const ch of s) {
    if (ch === '.') {
      const v4 = parseV4(s);
      return v4 === undefined ? undefined : fromV4(v4);
    }
    if (ch === ':') return parseV6(s);
  }
  return undefined;
}

/** Parses `addr/bits` as upstream's ParseCIDRSloppy. */
export function parseCIDR(s: string): ParsedCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  const v4 = parseV4(addr);
  const ip = v4 !== undefined ? fromV4(v4) : parseV6(addr);
  const d = decimal(mask, 0);
  if (ip === undefined || d === undefined || d.length !== mask.length) return undefined;
  const maxBits = ip.v4Literal ? 32 : 128;
  if (d.value > maxBits) return undefined;
  const leadingZero = mask.length > 1 && mask[0] === '0';
  return { ip, bits: d.value, strict: ip.strict && !leadingZero };
}

/** Whether the 16 bytes hold an IPv4-mapped address (`::ffff:a.b.c.d`), which Go prints as IPv4. */
export function isV4Mapped(bytes: Uint8Array): boolean {
  return V4_MAPPED_PREFIX.every((b, i) => bytes[i] === b);
}

/** Written as IPv6 text but IPv4-mapped: netip's Is4In6. */
export function is4In6(ip: ParsedIP): boolean {
  return !ip.v4Literal && isV4Mapped(ip.bytes);
}

function formatV6(bytes: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  // The first longest run of two or more zero groups becomes `::` (RFC 5952).
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  if (bestLength < 2) return groups.map((g) => g.toString(16)).join(':');
  const head = groups.slice(0, bestStart).map((g) => g.toString(16)).join(':');
  const tail = groups.slice(bestStart + bestLength).map((g) => g.toString(16)).join(':');
  return `${head}::${tail}`;
}

/** 16 bytes as Go's net.IP.String() prints them: dotted IPv4 for IPv4-mapped, else RFC 5952 IPv6. */
export function formatIPBytes(bytes: Uint8Array): string {
  return isV4Mapped(bytes) ? Array.from(bytes.subarray(12)).join('.') : formatV6(bytes);
}

/** The address as net/netip's Addr.String() prints it (IPv4-mapped IPv6 stays IPv6: `::ffff:1.2.3.4`). */
export function formatAddr(ip: ParsedIP): string {
  if (ip.v4Literal) return Array.from(ip.bytes.subarray(12)).join('.');
  if (isV4Mapped(ip.bytes)) return `::ffff:${Array.from(ip.bytes.subarray(12)).join('.')}`;
  return formatV6(ip.bytes);
}

/** The address with every bit past the first `bits` cleared. */
export function maskBytes(bytes: Uint8Array, bits: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] = out[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return out;
}

/** The prefix length over all 128 bits (an IPv4 literal's prefix counts from bit 96). */
function bits128(cidr: ParsedCIDR): number {
  return cidr.ip.v4Literal ? cidr.bits + 96 : cidr.bits;
}

/** Whether bits are set past the prefix length (`10.0.0.1/8`). */
export function hasHostBits(cidr: ParsedCIDR): boolean {
  const masked = maskBytes(cidr.ip.bytes, bits128(cidr));
  return masked.some((b, i) => b !== cidr.ip.bytes[i]);
}

/** The network as Go's net.IPNet.String() prints it: `10.0.0.0/8`, `2001:db8::/32`. */
export function formatNetwork(cidr: ParsedCIDR): string {
  const network = maskBytes(cidr.ip.bytes, bits128(cidr));
  if (isV4Mapped(network)) {
    const ones = cidr.ip.v4Literal ? cidr.bits : Math.max(0, cidr.bits - 96);
    return `${formatIPBytes(network)}/${ones}`;
  }
  return `${formatV6(network)}/${cidr.bits}`;
}
