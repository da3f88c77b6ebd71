/**
 * Node ports from `--service-node-port-range`, one key per allocated port at
 * `<prefix>/servicenodeports/<port>` naming its Service (see
 * allocation-keys.ts). Upstream keeps one bitmap key,
 * `/registry/ranges/servicenodeports`; a key per port lets API servers on one
 * store allocate concurrently without retrying against each other.
 *
 * Dynamic allocation prefers the upper part of the range and leaves the first
 * min(max(16, size/32), 128) ports for static requests (KEP-3668).
 *
 * {@link NodePortOperation} groups the claims and releases of one request:
 * what it claimed is given back unless it is committed, and releases wait for
 * the commit (upstream's PortAllocationOperation).
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { ObjectStore } from '../../generic/object-store.js';
import { AllocationKeys, allocationMeta, type ParentReference } from './allocation-keys.js';
import { cryptoRandom, portAllocated, portNotInRange, rangeFull, type RandomSource } from './allocation-errors.js';
import { formatPortRange, portRangeContains, type PortRange } from './port-range.js';
import type { ServiceRef } from './service-helpers.js';

export class NodePortAllocator {
  readonly rangeText: string;
  private readonly offset: number;
  private readonly keys: AllocationKeys;

  constructor(
    readonly range: PortRange,
    storage: ObjectStore,
    prefix: string,
    private readonly random: RandomSource = cryptoRandom,
  ) {
    this.rangeText = formatPortRange(range);
    this.offset = portRangeOffset(range.size);
    this.keys = new AllocationKeys(storage, {
      prefix: `${prefix.replace(/\/+$/, '')}/servicenodeports/`,
      newObject: (name: string, parentRef: ParentReference): KubeObject => ({
        apiVersion: 'k8ts.io/v1',
        kind: 'ServiceNodePort',
        metadata: allocationMeta(name),
        spec: { parentRef },
      }),
    });
  }

  /** Reserve a requested port; AllocationError NotInRange or Allocated when it cannot be had. */
  async allocate(port: number, owner: ServiceRef): Promise<void> {
    if (!portRangeContains(this.range, port)) throw portNotInRange(this.rangeText);
    if (!(await this.keys.claim(String(port), owner))) throw portAllocated();
  }

  /** Reserve any free port, preferring the upper part of the range; AllocationError Full when none is left. */
  async allocateNext(owner: ServiceRef): Promise<number> {
    const base = BigInt(this.range.base);
    const size = BigInt(this.range.size);
    const offset = BigInt(this.offset);
    const value = await this.keys.claimNext(
      [
        { start: base + offset, size: size - offset },
        { start: base, size: offset },
      ],
      (v) => String(v),
      owner,
      this.random,
    );
    if (value === undefined) throw rangeFull();
    return Number(value);
  }

  /** Give the port back if `owner` holds it. */
  async release(port: number, owner: ServiceRef): Promise<boolean> {
    if (!portRangeContains(this.range, port)) return false;
    return this.keys.release(String(port), owner);
  }

  /** Whether the port is allocated (to anyone); false outside the range. */
  async has(port: number): Promise<boolean> {
    return portRangeContains(this.range, port) && (await this.keys.has(String(port)));
  }
}

/** KEP-3668: min(max(16, size/32), 128) ports at the start of the range kept for static requests. */
export function portRangeOffset(size: number): number {
  if (size <= 16) return 0;
  const offset = Math.floor(size / 32);
  return offset < 16 ? 16 : offset > 128 ? 128 : offset;
}

/**
 * The node port claims and releases of one request (upstream's
 * PortAllocationOperation). A dry run claims nothing: a requested port is
 * only checked against what is allocated, and "next" ports are dummies above
 * 32768, as upstream answers them.
 */
export class NodePortOperation {
  private readonly allocated: number[] = [];
  private readonly toRelease: number[] = [];
  private committed = false;

  constructor(
    private readonly allocator: NodePortAllocator,
    private readonly owner: ServiceRef,
    private readonly dryRun: boolean,
  ) {}

  async allocate(port: number): Promise<void> {
    if (this.dryRun) {
      if ((await this.allocator.has(port)) || this.allocated.includes(port)) throw portAllocated();
      this.allocated.push(port);
      return;
    }
    await this.allocator.allocate(port, this.owner);
    this.allocated.push(port);
  }

  async allocateNext(): Promise<number> {
    if (this.dryRun) {
      const port = (this.allocated.length === 0 ? 32768 : Math.max(...this.allocated)) + 1;
      this.allocated.push(port);
      return port;
    }
    const port = await this.allocator.allocateNext(this.owner);
    this.allocated.push(port);
    return port;
  }

  /** Release `port` when the operation commits. */
  releaseDeferred(port: number): void {
    this.toRelease.push(port);
  }

  /** Keep what was claimed and release what was deferred. */
  async commit(): Promise<void> {
    this.committed = true;
    if (this.dryRun) return;
    for (const port of this.toRelease) await this.allocator.release(port, this.owner);
  }

  /** Unless committed, give back what this operation claimed. */
  async revert(): Promise<void> {
    if (this.committed || this.dryRun) return;
    this.committed = true;
    for (const port of this.allocated) await this.allocator.release(port, this.owner);
  }
}
