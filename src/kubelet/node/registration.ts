/**
 * Node registration as upstream's kubelet does it (kubelet_node_status.go,
 * registerWithAPIServer): create the Node; when it already exists, read it and
 * bring the kubelet's default labels (hostname, os, arch) back to what this
 * machine says, leaving every other label, taint and field as the
 * administrator left them (--node-labels and --register-with-taints apply at
 * creation only, as upstream). Failures are retried with a backoff that
 * starts at 100 ms and doubles up to 7 s, until it succeeds or is cancelled.
 */
import type { Taint } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/rest/interface.js';
import { NODES } from '../../client/rest/resources.js';
import type { Logger } from '../../machinery/logger.js';
import { isAlreadyExists } from '../../machinery/status.js';
import type { Node } from '../types.js';
import { DEFAULT_LABEL_KEYS } from './node-labels.js';

export const CONTROLLER_MANAGED_ATTACH_DETACH_ANNOTATION = 'volumes.kubernetes.io/controller-managed-attach-detach';

export interface InitialNodeOptions {
  readonly nodeName: string;
  /** Default labels first, then --node-labels. */
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
}

/** The Node a kubelet creates (upstream's initialNode, without status: the status reporter writes it next). */
export function initialNode(options: InitialNodeOptions): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: options.nodeName,
      labels: { ...options.labels },
      annotations: { [CONTROLLER_MANAGED_ATTACH_DETACH_ANNOTATION]: 'true' },
    },
    spec: options.taints.length > 0 ? { taints: options.taints.map((t) => ({ ...t })) } : {},
  };
}

/** The default labels of `wanted` whose value on `existing` differs (value undefined: remove), as upstream's updateDefaultLabels. */
export function defaultLabelChanges(wanted: Node, existing: Node): Record<string, string | null> {
  const want = wanted.metadata.labels ?? {};
  const have = existing.metadata.labels ?? {};
  const changes: Record<string, string | null> = {};
  for (const key of DEFAULT_LABEL_KEYS) {
    const w = want[key];
    const h = have[key];
    if (w !== undefined && w !== h) changes[key] = w;
    if (w === undefined && h !== undefined) changes[key] = null;
  }
  return changes;
}

/** One try: the registered Node, or throws. */
export async function tryRegisterNode(client: Client, node: Node, logger: Logger): Promise<Node> {
  const nodes = client.resource<Node>(NODES);
  try {
    return await nodes.create(node);
  } catch (e: unknown) {
    if (!isAlreadyExists(e)) throw e;
  }
  const name = node.metadata.name ?? '';
  const existing = await nodes.get(name);
  const changes = defaultLabelChanges(node, existing);
  if (Object.keys(changes).length === 0) return existing;
  logger.info({ node: name, labels: changes }, 'updating the default labels of the existing Node');
  return nodes.patch(name, 'merge', { metadata: { labels: changes } });
}

export interface RegisterNodeOptions {
  readonly client: Client;
  readonly node: Node;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** First retry delay (default 100 ms), doubled up to maxBackoffMs (default 7 s), as upstream. */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

/** Registers until it succeeds; resolves undefined when the signal aborts first. */
export async function registerNode(options: RegisterNodeOptions): Promise<Node | undefined> {
  let delay = options.initialBackoffMs ?? 100;
  const max = options.maxBackoffMs ?? 7_000;
  while (!options.signal.aborted) {
    try {
      const node = await tryRegisterNode(options.client, options.node, options.logger);
      options.logger.info({ node: node.metadata.name }, 'Successfully registered node');
      return node;
    } catch (e: unknown) {
      options.logger.warn({ err: e, node: options.node.metadata.name }, 'Unable to register node with API server');
    }
    await abortableDelay(delay, options.signal);
    delay = Math.min(delay * 2, max);
  }
  return undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
