/**
 * Waits for a node's Ready condition to be True (the last step of the
 * progress display of `k8ts server` and `k8ts agent`): polls the Node, which
 * may not exist yet, until Ready, the deadline, or cancellation.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { Client } from '../../client/rest/interface.js';
import { NODES } from '../../client/rest/resources.js';

export interface WaitNodeReadyOptions {
  readonly timeoutMs: number;
  /** Default 250 ms. */
  readonly intervalMs?: number;
  readonly cancelled?: () => boolean;
}

interface NodeObject extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

export const isNodeReady = (node: NodeObject): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export async function waitForNodeReady(client: Client, nodeName: string, options: WaitNodeReadyOptions): Promise<'ready' | 'timeout' | 'cancelled'> {
  const nodes = client.resource<NodeObject>(NODES);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (options.cancelled?.() === true) return 'cancelled';
    try {
      if (isNodeReady(await nodes.get(nodeName))) return 'ready';
    } catch {
      // not registered yet, or the API server is busy: ask again
    }
    if (Date.now() >= deadline) return 'timeout';
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
  }
}
