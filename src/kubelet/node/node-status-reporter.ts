/**
 * Writes the node's status as upstream's kubelet does with node leases on:
 * the status is computed every --node-status-update-frequency (10 s) and
 * written — one strategic merge PATCH of nodes/<name>/status, never a read
 * first — only when it changed (heartbeat times aside) or when
 * --node-status-report-frequency (5 min) has passed since the last write.
 * `poke()` computes it at once (the runtime's readiness may have moved).
 */
import type { NodeCondition, NodeStatus } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/rest/interface.js';
import { NODES } from '../../client/rest/resources.js';
import type { Logger } from '../../machinery/logger.js';
import { formatTime, jsonEqual } from '../../machinery/meta.js';
import type { Node } from '../types.js';
import { buildNodeStatus, withoutHeartbeats, type NodeStatusInputs } from './node-status.js';
import { abortableDelay } from './registration.js';

export interface NodeStatusReporterOptions {
  readonly client: Client;
  readonly nodeName: string;
  /** What the status is made of, read afresh for each computation. */
  readonly inputs: () => Promise<NodeStatusInputs>;
  readonly updateFrequencyMs: number;
  readonly reportFrequencyMs: number;
  readonly logger: Logger;
  /** Each Node the API server returned from a status write. */
  readonly onNode?: (node: Node) => void;
  /** After each write, with the status written before it (undefined for the first). */
  readonly onWritten?: (status: NodeStatus, previous: NodeStatus | undefined) => void;
  readonly now?: () => number;
}

export interface NodeStatusReporter {
  run(signal: AbortSignal): Promise<void>;
  /** Compute (and write if it changed) at once. */
  poke(): void;
  /** The status last written (undefined before the first write). */
  readonly lastWritten: NodeStatus | undefined;
}

export function newNodeStatusReporter(options: NodeStatusReporterOptions): NodeStatusReporter {
  const nodes = options.client.resource<Node>(NODES);
  const now = options.now ?? Date.now;
  let lastWritten: NodeStatus | undefined;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let wake: (() => void) | undefined;
  let poked = false;

  /** Computes the status; writes it when due. Throws when the write fails. */
  const syncOnce = async (): Promise<void> => {
    const at = now();
    const previous: readonly NodeCondition[] = lastWritten?.conditions ?? [];
    const status = buildNodeStatus(await options.inputs(), formatTime(new Date(at)), previous);
    const changed = lastWritten === undefined || !jsonEqual(withoutHeartbeats(status), withoutHeartbeats(lastWritten));
    if (!changed && at - lastWriteAt < options.reportFrequencyMs) return;
    const node = await nodes.patch(options.nodeName, 'strategic', { status }, { subresource: 'status' });
    const before = lastWritten;
    lastWritten = status;
    lastWriteAt = at;
    options.onNode?.(node);
    options.onWritten?.(status, before);
  };

  return {
    get lastWritten() {
      return lastWritten;
    },
    poke(): void {
      poked = true;
      wake?.();
    },
    async run(signal: AbortSignal): Promise<void> {
      while (!signal.aborted) {
        poked = false;
        try {
          await syncOnce();
        } catch (e: unknown) {
          options.logger.warn({ err: e, node: options.nodeName }, 'Error updating node status, will retry');
        }
        if (poked || signal.aborted) continue;
        await new Promise<void>((resolve) => {
          const inner = new AbortController();
          const stopWaiting = (): void => inner.abort();
          signal.addEventListener('abort', stopWaiting, { once: true });
          wake = stopWaiting;
          void abortableDelay(options.updateFrequencyMs, inner.signal).then(() => {
            signal.removeEventListener('abort', stopWaiting);
            wake = undefined;
            resolve();
          });
        });
      }
    },
  };
}
