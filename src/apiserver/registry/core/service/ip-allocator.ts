/**
 * Cluster IPs of one family from one `--service-cluster-ip-range`, kept as
 * upstream 1.33 keeps them: one networking.k8s.io/v1 IPAddress object per
 * allocated address, at `<prefix>/ipaddresses/<ip>`, naming its Service in
 * `spec.parentRef` (see allocation-keys.ts for why this is safe across API
 * servers).
 *
 * The range is used as upstream's allocator uses it: never the network
 * address, nor the IPv4 broadcast address; dynamic allocation prefers the
 * upper part of the range and leaves the first min(max(16, size/16), 256)
 * addresses for static requests (KEP-3070).
 *
 * @example
 *   const ips = new ClusterIPAllocator(parseCidr('10.96.0.0/24'), storage, '/registry');
 *   await ips.allocate('10.96.0.10', { namespace: 'kube-system', name: 'kube-dns' });
 *   const ip = await ips.allocateNext({ namespace: 'default', name: 'web' }); // e.g. '10.96.0.153'
 */
import { formatAddress, type Cidr } from '../../../../machinery/cidr.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isV4Mapped, parseIP } from '../../../../machinery/validation/ip-parse.js';
import type { ObjectStore } from '../../generic/object-store.js';
import { AllocationKeys, allocationMeta, type Band, type ParentReference } from './allocation-keys.js';
import { cryptoRandom, ipAllocated, ipMismatchedNetwork, ipNotInRange, rangeFull, type RandomSource } from './allocation-errors.js';
import type { IPFamily, ServiceRef } from './service-helpers.js';

const FAMILY_LABEL = 'ipaddress.kubernetes.io/ip-family';
const MANAGED_BY_LABEL = 'ipaddress.kubernetes.io/managed-by';
const MANAGED_BY = 'ipallocator.k8s.io';

export class ClusterIPAllocator {
  readonly family: IPFamily;
  /** The range as upstream prints it, e.g. `10.96.0.0/12`. */
  readonly rangeText: string;
  private readonly first: bigint;
  private readonly last: bigint;
  private readonly offset: bigint;
  private readonly keys: AllocationKeys;

  constructor(
    readonly range: Cidr,
    storage: ObjectStore,
    /** The storage prefix, e.g. `/registry`. */
    prefix: string,
    private readonly random: RandomSource = cryptoRandom,
  ) {
    this.family = range.family === 4 ? 'IPv4' : 'IPv6';
    this.rangeText = `${formatAddress(range.family, range.network)}/${range.prefixLength}`;
    this.first = range.network + 1n;
    this.last = range.network + range.size - (range.family === 4 ? 2n : 1n);
    this.offset = rangeOffset(range.size);
    const family = this.family;
    this.keys = new AllocationKeys(storage, {
      prefix: `${prefix.replace(/\/+$/, '')}/ipaddresses/`,
      newObject: (name: string, parentRef: ParentReference): KubeObject => ({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IPAddress',
        metadata: allocationMeta(name, { [FAMILY_LABEL]: family, [MANAGED_BY_LABEL]: MANAGED_BY }),
        spec: { parentRef },
      }),
    });
  }

  /** How many addresses the range hands out. */
  get size(): bigint {
    return this.last >= this.first ? this.last - this.first + 1n : 0n;
  }

  /** The address in upstream's canonical form if it is an address of this family, else undefined. */
  canonical(ip: string): string | undefined {
    const value = this.valueOf(ip);
    return value === undefined ? undefined : formatAddress(this.range.family, value);
  }

  /** Whether the range hands out this address (in range, not the network or IPv4 broadcast address). */
  contains(ip: string): boolean {
    const value = this.valueOf(ip);
    return value !== undefined && value >= this.first && value <= this.last;
  }

  /** Reserve a requested address; AllocationError Allocated or MismatchedNetwork when it cannot be had. */
  async allocate(ip: string, owner: ServiceRef, dryRun = false): Promise<string> {
    const value = this.valueOf(ip);
    if (value === undefined || value < this.first || value > this.last) {
      // Upstream's dry-run allocator checks the range itself, with the older message.
      throw dryRun ? ipNotInRange(ip, this.rangeText) : ipMismatchedNetwork();
    }
    const name = formatAddress(this.range.family, value);
    if (dryRun) return name;
    if (!(await this.keys.claim(name, owner))) throw ipAllocated();
    return name;
  }

  /** Reserve any free address, preferring the upper part of the range; AllocationError Full when none is left. */
  async allocateNext(owner: ServiceRef, dryRun = false): Promise<string> {
    // Upstream's dry run does not look for a free address: it answers the network address.
    if (dryRun) return formatAddress(this.range.family, this.range.network);
    const size = this.size;
    const upper: Band = { start: this.first + this.offset, size: size > this.offset ? size - this.offset : 0n };
    const lower: Band = { start: this.first, size: size < this.offset ? size : this.offset };
    const value = await this.keys.claimNext([upper, lower], (v) => formatAddress(this.range.family, v), owner, this.random);
    if (value === undefined) throw rangeFull();
    return formatAddress(this.range.family, value);
  }

  /** Give the address back if `owner` holds it; a no-op for a free address, another's, or one outside the range. */
  async release(ip: string, owner: ServiceRef): Promise<boolean> {
    const value = this.valueOf(ip);
    if (value === undefined) return false;
    return this.keys.release(formatAddress(this.range.family, value), owner);
  }

  /** Whether the address is allocated (to anyone). */
  async has(ip: string): Promise<boolean> {
    const name = this.canonical(ip);
    return name !== undefined && (await this.keys.has(name));
  }

  private valueOf(ip: string): bigint | undefined {
    const parsed = parseIP(ip);
    if (parsed === undefined) return undefined;
    const v4 = isV4Mapped(parsed.bytes);
    if ((this.range.family === 4) !== v4) return undefined;
    const bytes = v4 ? parsed.bytes.subarray(12) : parsed.bytes;
    return bytes.reduce((acc, b) => (acc << 8n) + BigInt(b), 0n);
  }
}

/** KEP-3070: how many addresses at the start of a range dynamic allocation avoids, min(max(16, size/16), 256). */
export function rangeOffset(rangeSize: bigint): bigint {
  if (rangeSize <= 16n) return 0n;
  const offset = rangeSize / 16n;
  return offset < 16n ? 16n : offset > 256n ? 256n : offset;
}
