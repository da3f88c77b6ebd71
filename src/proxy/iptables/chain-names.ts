/**
 * iptables chain names as upstream's iptables proxier makes them
 * (pkg/proxy/iptables/proxier.go): a chain name may be at most 28 characters,
 * so per-Service and per-endpoint chains carry a hash instead of the name:
 * SHA-256 of the Service port's name ("ns/name" or "ns/name:port") followed by
 * the lower-case protocol (and, for endpoint chains, "ip:port"), encoded in
 * RFC 4648 base32 and cut to 16 characters. Equal names on every node and
 * every restart, so a restarted proxy rewrites the same chains.
 */
import { createHash } from 'node:crypto';
import type { ServicePortName } from '../interface.js';

export const SERVICE_CHAIN_PREFIX = 'KUBE-SVC-';
export const SERVICE_LOCAL_CHAIN_PREFIX = 'KUBE-SVL-';
export const SERVICE_EXTERNAL_CHAIN_PREFIX = 'KUBE-EXT-';
export const SERVICE_FIREWALL_CHAIN_PREFIX = 'KUBE-FW-';
export const ENDPOINT_CHAIN_PREFIX = 'KUBE-SEP-';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The first 16 base32 characters (80 bits) of `bytes`. */
function base32Prefix16(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; out.length < 16; i++) {
    buffer = ((buffer << 8) | (bytes[i] ?? 0)) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < 16) {
      out += BASE32[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** Upstream's ServicePortName.String(): `ns/name`, plus `:port` for a named port. */
export function servicePortNameString(name: ServicePortName): string {
  return name.port === '' ? `${name.namespace}/${name.name}` : `${name.namespace}/${name.name}:${name.port}`;
}

/** `ip:port`, with brackets around an IPv6 address (Go's net.JoinHostPort). */
export function endpointString(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/**
 * Hashes already computed, by input: a sync of 10,000 endpoints would
 * otherwise spend most of its generation time in SHA-256. Cleared when it
 * grows past MAX_CACHED (Services and endpoints that come and go).
 */
const hashes = new Map<string, string>();
const MAX_CACHED = 200_000;

function hash16(input: string): string {
  let h = hashes.get(input);
  if (h === undefined) {
    if (hashes.size >= MAX_CACHED) hashes.clear();
    h = base32Prefix16(createHash('sha256').update(input).digest());
    hashes.set(input, h);
  }
  return h;
}

/** Upstream's portProtoHash. */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return hash16(servicePortName + protocol);
}

export interface ServiceChainNames {
  /** KUBE-SVC-…: dispatch to the endpoints used under the Cluster policy. */
  readonly cluster: string;
  /** KUBE-SVL-…: dispatch to this node's endpoints, under a Local policy. */
  readonly local: string;
  /** KUBE-EXT-…: node ports, external and load-balancer IPs enter here. */
  readonly external: string;
}

export function serviceChainNames(name: ServicePortName): ServiceChainNames {
  const hash = portProtoHash(servicePortNameString(name), name.protocol.toLowerCase());
  return {
    cluster: SERVICE_CHAIN_PREFIX + hash,
    local: SERVICE_LOCAL_CHAIN_PREFIX + hash,
    external: SERVICE_EXTERNAL_CHAIN_PREFIX + hash,
  };
}

/** KUBE-SEP-…: the chain that DNATs to one endpoint of one Service port. */
export function endpointChainName(name: ServicePortName, endpoint: string): string {
  return ENDPOINT_CHAIN_PREFIX + hash16(servicePortNameString(name) + name.protocol.toLowerCase() + endpoint);
}

/** Whether a nat-table chain is a per-Service or per-endpoint chain (ours to delete once unused). */
export function isServiceChainName(chain: string): boolean {
  return (
    chain.startsWith(SERVICE_CHAIN_PREFIX) ||
    chain.startsWith(SERVICE_LOCAL_CHAIN_PREFIX) ||
    chain.startsWith(SERVICE_EXTERNAL_CHAIN_PREFIX) ||
    chain.startsWith(SERVICE_FIREWALL_CHAIN_PREFIX) ||
    chain.startsWith(ENDPOINT_CHAIN_PREFIX)
  );
}
