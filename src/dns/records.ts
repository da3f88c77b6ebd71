/**
 * The resource records of one Service, as the Kubernetes DNS-based service
 * discovery specification (kubernetes/dns docs/specification.md) lists them
 * and CoreDNS's kubernetes plugin serves them. Pure: a {@link ServiceEntry}
 * (what the zone index folds from a Service and its EndpointSlices) in, the
 * records out, forward names and reverse (PTR) names alike.
 *
 * Names here are lower-case and carry no trailing dot; the zone index keys
 * them so, and DNS comparisons are case-insensitive (spec §2.1).
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Answer } from 'dns-packet';

/** CoreDNS's kubernetes plugin default TTL (`ttl 5`). */
export const DEFAULT_TTL_SECONDS = 5;
export const DEFAULT_CLUSTER_DOMAIN = 'cluster.local';

export type PortProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface PortEntry {
  /** '' for an unnamed port: unnamed ports have no SRV record. */
  readonly name: string;
  readonly protocol: PortProtocol;
  readonly port: number;
}

/** One ready endpoint address of a headless Service. */
export interface EndpointEntry {
  readonly ip: string;
  /** The endpoint's `hostname` (pod spec.hostname when its subdomain is the Service); absent: derived from the address. */
  readonly hostname?: string;
  /** The EndpointSlice's ports (the pod's ports: SRV records of a headless Service carry them, as CoreDNS's do). */
  readonly ports: readonly PortEntry[];
}

export type ServiceEntry =
  | { readonly kind: 'ClusterIP'; readonly namespace: string; readonly name: string; readonly clusterIPs: readonly string[]; readonly ports: readonly PortEntry[] }
  | { readonly kind: 'Headless'; readonly namespace: string; readonly name: string; readonly endpoints: readonly EndpointEntry[] }
  | { readonly kind: 'ExternalName'; readonly namespace: string; readonly name: string; readonly externalName: string; readonly ports: readonly PortEntry[] };

/** Lower-case, without the trailing dot: the form every name is compared in. */
export const canonicalName = (name: string): string => name.replace(/\.+$/, '').toLowerCase();

/** `SERVICE.NS.svc.DOMAIN`. */
export const serviceName = (namespace: string, name: string, domain: string): string => canonicalName(`${name}.${namespace}.svc.${domain}`);

/**
 * The _hostname_ of an endpoint (spec §2.1): its `hostname`, else an
 * identifier made from its address (CoreDNS's: the address with `.` or `:`
 * replaced by `-`).
 */
export function endpointHostname(endpoint: Pick<EndpointEntry, 'ip' | 'hostname'>): string {
  if (endpoint.hostname !== undefined && endpoint.hostname !== '') return endpoint.hostname.toLowerCase();
  return endpoint.ip.toLowerCase().replace(/[.:]/g, '-');
}

/** Expand an IPv6 address to its 8 groups of 4 hex digits. */
function expandIPv6(ip: string): string[] {
  let text = ip.toLowerCase();
  const embedded = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (embedded !== null) {
    const [a, b, c, d] = embedded[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, embedded.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => group.padStart(4, '0'));
}

/** The reverse-lookup name of an address (`d.c.b.a.in-addr.arpa`, or the nibbles under ip6.arpa); undefined for a non-address. */
export function reverseName(ip: string): string | undefined {
  if (isIPv4(ip)) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  if (isIPv6(ip)) return `${[...expandIPv6(ip).join('')].reverse().join('.')}.ip6.arpa`;
  return undefined;
}

/** The A or AAAA record of an address; undefined for a non-address. */
export function addressRecord(name: string, ip: string, ttl: number): Answer | undefined {
  if (isIPv4(ip)) return { name, type: 'A', ttl, data: ip };
  if (isIPv6(ip)) return { name, type: 'AAAA', ttl, data: ip };
  return undefined;
}

const srvName = (port: PortEntry, owner: string): string => canonicalName(`_${port.name}._${port.protocol}.${owner}`);

/** Every record of one Service (spec §2.3 ClusterIP, §2.4 headless, §2.5 ExternalName), forward and reverse. */
export function serviceRecords(entry: ServiceEntry, domain: string, ttl: number = DEFAULT_TTL_SECONDS): Answer[] {
  const owner = serviceName(entry.namespace, entry.name, domain);
  const out: Answer[] = [];
  switch (entry.kind) {
    case 'ClusterIP': {
      const ips = entry.clusterIPs.filter((ip) => addressRecord(owner, ip, ttl) !== undefined);
      for (const ip of ips) out.push(addressRecord(owner, ip, ttl)!);
      if (ips.length > 0) {
        for (const port of entry.ports) {
          if (port.name === '') continue;
          out.push({ name: srvName(port, owner), type: 'SRV', ttl, data: { priority: 0, weight: 100, port: port.port, target: owner } });
        }
      }
      for (const ip of ips) out.push({ name: reverseName(ip)!, type: 'PTR', ttl, data: owner });
      return out;
    }
    case 'Headless': {
      const seen = new Set<string>();
      const endpoints = entry.endpoints.filter((e) => addressRecord(owner, e.ip, ttl) !== undefined);
      if (endpoints.length === 0) return out; // no ready endpoint: the name does not exist (NXDOMAIN, spec §2.4.1)
      const srvWeight = Math.max(1, Math.floor(100 / endpoints.length));
      for (const endpoint of endpoints) {
        const host = `${endpointHostname(endpoint)}.${owner}`;
        if (!seen.has(endpoint.ip)) out.push(addressRecord(owner, endpoint.ip, ttl)!);
        seen.add(endpoint.ip);
        out.push(addressRecord(host, endpoint.ip, ttl)!);
        for (const port of endpoint.ports) {
          if (port.name === '') continue;
          out.push({ name: srvName(port, owner), type: 'SRV', ttl, data: { priority: 0, weight: srvWeight, port: port.port, target: host } });
        }
        out.push({ name: reverseName(endpoint.ip)!, type: 'PTR', ttl, data: host });
      }
      return out;
    }
    case 'ExternalName': {
      const target = canonicalName(entry.externalName);
      if (target === '') return out;
      out.push({ name: owner, type: 'CNAME', ttl, data: target });
      for (const port of entry.ports) {
        if (port.name === '') continue;
        out.push({ name: srvName(port, owner), type: 'SRV', ttl, data: { priority: 0, weight: 100, port: port.port, target } });
      }
      return out;
    }
  }
}
