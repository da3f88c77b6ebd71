/**
 * The pod ranges of one cluster CIDR: the cluster range cut into subnets of
 * --node-cidr-mask-size, handed out one at a time, as upstream's cidrset
 * does: the next free subnet after the last one given (round robin, so a
 * released subnet is not handed out again until the others have been), and
 * never one that is in use.
 */
import { addressAt, parseCidr, type Cidr } from '../../machinery/cidr.js';

export class CidrSet {
  readonly cluster: Cidr;
  readonly maskSize: number;
  /** How many subnets the cluster range holds. */
  readonly capacity: bigint;
  private readonly used = new Set<bigint>();
  private nextCandidate = 0n;

  /** Throws for an invalid CIDR or a mask size that does not fit inside the cluster range. */
  constructor(clusterCidr: string, maskSize: number) {
    this.cluster = parseCidr(clusterCidr.trim());
    const bits = this.cluster.family === 4 ? 32 : 128;
    if (!Number.isInteger(maskSize) || maskSize < this.cluster.prefixLength || maskSize > bits) {
      throw new Error(`node CIDR mask size ${maskSize} does not fit in the cluster CIDR ${clusterCidr} (prefix length ${this.cluster.prefixLength})`);
    }
    this.maskSize = maskSize;
    this.capacity = 1n << BigInt(maskSize - this.cluster.prefixLength);
  }

  get family(): 4 | 6 {
    return this.cluster.family;
  }

  get allocatedCount(): number {
    return this.used.size;
  }

  private subnetSize(): bigint {
    return this.cluster.size / this.capacity;
  }

  private format(index: bigint): string {
    return `${addressAt(this.cluster, index * this.subnetSize())}/${this.maskSize}`;
  }

  /** The subnet index of a CIDR of this set, or undefined when it is not one of its subnets. */
  indexOf(cidr: string): bigint | undefined {
    let parsed: Cidr;
    try {
      parsed = parseCidr(cidr);
    } catch {
      return undefined;
    }
    if (parsed.family !== this.cluster.family || parsed.prefixLength !== this.maskSize) return undefined;
    const offset = parsed.network - this.cluster.network;
    if (offset < 0n || offset >= this.cluster.size) return undefined;
    return offset / this.subnetSize();
  }

  /** Mark a subnet in use (a node that already has it); false when it is not a subnet of this set. */
  occupy(cidr: string): boolean {
    const index = this.indexOf(cidr);
    if (index === undefined) return false;
    this.used.add(index);
    return true;
  }

  release(cidr: string): void {
    const index = this.indexOf(cidr);
    if (index !== undefined) this.used.delete(index);
  }

  isUsed(cidr: string): boolean {
    const index = this.indexOf(cidr);
    return index !== undefined && this.used.has(index);
  }

  /** The next free subnet, now in use; undefined when every subnet is taken. */
  allocateNext(): string | undefined {
    if (BigInt(this.used.size) >= this.capacity) return undefined;
    for (let tried = 0n; tried < this.capacity; tried++) {
      const index = (this.nextCandidate + tried) % this.capacity;
      if (!this.used.has(index)) {
        this.used.add(index);
        this.nextCandidate = (index + 1n) % this.capacity;
        return this.format(index);
      }
    }
    return undefined;
  }
}
