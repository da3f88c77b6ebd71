/**
 * Node IPAM (upstream's node-ipam-controller with the RangeAllocator): every
 * Node without spec.podCIDR gets the next free subnet of --cluster-cidr (one
 * per family when the flag lists an IPv4 and an IPv6 range), patched into
 * spec.podCIDR and spec.podCIDRs. A subnet is never given twice: before the
 * first allocation every node's existing podCIDRs are marked used (so a
 * restarted controller rebuilds its state from the nodes), a deleted node's
 * subnets are released, and one worker serialises the allocations.
 * When the range is exhausted the node gets a CIDRNotAvailable Event and is
 * retried with backoff.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { ResourceClient } from '../../client/rest/interface.js';
import { NODES } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { CidrSet } from './cidr-set.js';

type NodeObject = KubeObject & Node;

/** Upstream's Event component of node IPAM events (they are recorded as node status changes). */
const COMPONENT = 'cidrAllocator';

const podCidrsOf = (node: NodeObject): string[] => {
  const cidrs = node.spec?.podCIDRs ?? [];
  if (cidrs.length > 0) return [...cidrs];
  return node.spec?.podCIDR !== undefined && node.spec.podCIDR !== '' ? [node.spec.podCIDR] : [];
};

/** upstream's RecordNodeStatusChange: a Normal Event whose reason is the new status. */
export function recordNodeStatusChange(recorder: EventRecorder, node: KubeObject, status: string): void {
  recorder.event(node, 'Normal', status, `Node ${node.metadata.name ?? ''} status is now: ${status}`);
}

/**
 * The mask of IPv6 node ranges: upstream's --node-cidr-mask-size-ipv6 default
 * (64), unless --node-cidr-mask-size is larger than any IPv4 mask (then it can
 * only be meant for IPv6).
 */
const ipv6MaskSize = (maskSize: number): number => (maskSize > 32 ? maskSize : 64);

export class RangeAllocator {
  private readonly sets: CidrSet[];
  /** What each node holds, so a deleted node's subnets can be released. */
  private readonly byNode = new Map<string, string[]>();
  private initialized = false;

  constructor(
    private readonly nodes: Indexer<NodeObject>,
    private readonly client: ResourceClient<NodeObject>,
    private readonly recorder: EventRecorder,
    clusterCidrs: string,
    maskSize: number,
  ) {
    this.sets = clusterCidrs
      .split(',')
      .filter((c) => c.trim() !== '')
      .map((c) => new CidrSet(c, c.includes(':') ? ipv6MaskSize(maskSize) : maskSize));
    if (this.sets.length === 0) throw new Error('node IPAM needs --cluster-cidr');
  }

  /** Mark every known node's subnets used, once, before anything is allocated. */
  private initialize(): void {
    if (this.initialized) return;
    this.initialized = true;
    for (const node of this.nodes.list()) this.occupy(node);
  }

  private occupy(node: NodeObject): void {
    const cidrs = podCidrsOf(node);
    if (cidrs.length === 0) return;
    for (const cidr of cidrs) this.sets.find((s) => s.indexOf(cidr) !== undefined)?.occupy(cidr);
    this.byNode.set(node.metadata.name ?? '', cidrs);
  }

  private release(name: string): void {
    for (const cidr of this.byNode.get(name) ?? []) for (const set of this.sets) set.release(cidr);
    this.byNode.delete(name);
  }

  async reconcile(name: string): Promise<ReconcileResult | void> {
    this.initialize();
    const node = this.nodes.get(name);
    if (node === undefined) {
      this.release(name);
      return;
    }
    if (podCidrsOf(node).length > 0) {
      this.occupy(node);
      return;
    }
    // Allocated before but the patch has not shown up on the watch yet (or failed): patch the same subnets again.
    let cidrs = this.byNode.get(name);
    if (cidrs === undefined) {
      const allocated: string[] = [];
      for (const set of this.sets) {
        const cidr = set.allocateNext();
        if (cidr === undefined) {
          for (const s of this.sets) for (const c of allocated) s.release(c);
          recordNodeStatusChange(this.recorder, node, 'CIDRNotAvailable');
          throw new Error(`failed to allocate a pod CIDR for node ${name}: ${set.cluster.family === 4 ? 'IPv4' : 'IPv6'} range of ${set.capacity} subnets exhausted`);
        }
        allocated.push(cidr);
      }
      cidrs = allocated;
      this.byNode.set(name, cidrs);
    }
    try {
      await this.client.patch(name, 'strategic', { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } });
    } catch (e: unknown) {
      recordNodeStatusChange(this.recorder, node, 'CIDRAssignmentFailed');
      this.release(name);
      throw e;
    }
  }
}

export const nodeIpamController: ControllerDefinition = {
  name: 'node-ipam-controller',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    if (!ctx.options.allocateNodeCidrs) return;
    const informer = ctx.informers.informerFor<NodeObject>(NODES);
    const allocator = new RangeAllocator(
      informer.indexer,
      ctx.client.resource<NodeObject>(NODES),
      ctx.events.recorderFor(COMPONENT),
      ctx.options.clusterCidr,
      ctx.options.nodeCidrMaskSize,
    );
    const loop = startReconcileLoop(ctx, { name: 'node-ipam-controller', workers: 1, reconcile: (key) => allocator.reconcile(key) });
    informer.addEventHandler({
      onAdd: (node) => loop.enqueue(node.metadata.name ?? ''),
      onUpdate: (_old, node) => loop.enqueue(node.metadata.name ?? ''),
      onDelete: (node) => loop.enqueue(node.metadata.name ?? ''),
    });
  },
};
