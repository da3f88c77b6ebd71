/**
 * Pod addresses for the process runtime: each non-host-network sandbox gets the
 * lowest free address of the node's pod CIDR from .2 upward (.0 is the network,
 * .1 is left for a gateway as CNI's host-local does, and the broadcast address
 * is never used). Inside 127.0.0.0/8 Linux accepts a bind to any address
 * without configuration, so pods can all listen on the same port.
 *
 * The allocator holds no state of its own: the addresses in use are those of
 * the sandboxes on disk, so an address is released when its sandbox is
 * removed and survives a kubelet restart with it.
 */

export interface Ipv4Cidr {
  readonly network: number;
  readonly prefixLength: number;
}

export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

export const formatIpv4 = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

export function parseIpv4Cidr(text: string): Ipv4Cidr {
  const [addr, len] = text.split('/');
  const ip = addr === undefined ? undefined : parseIpv4(addr);
  const prefixLength = Number(len);
  if (ip === undefined || len === undefined || !/^\d+$/.test(len) || prefixLength > 30) {
    throw new Error(`invalid pod CIDR ${JSON.stringify(text)}: want an IPv4 a.b.c.d/n with n ≤ 30`);
  }
  const size = 2 ** (32 - prefixLength);
  return { network: Math.floor(ip / size) * size, prefixLength };
}

/** The lowest free address of the CIDR, or undefined when every one is taken. */
export function allocatePodIp(cidr: Ipv4Cidr, inUse: ReadonlySet<string>): string | undefined {
  const size = 2 ** (32 - cidr.prefixLength);
  for (let n = cidr.network + 2; n < cidr.network + size - 1; n++) {
    const ip = formatIpv4(n);
    if (!inUse.has(ip)) return ip;
  }
  return undefined;
}
