/**
 * The kubelet's view of its own Node: a list+watch of nodes with
 * fieldSelector metadata.name=<node> (what the Node authorizer lets a kubelet
 * read), keeping the latest object. When spec.podCIDR appears or changes
 * (node IPAM in the controller manager assigns it), the runtime is told
 * through CRI's UpdateRuntimeConfig, as upstream's kubelet does, and
 * `onPodCIDR` runs once the runtime has it.
 */
import { Reflector, type ReflectorChange } from '../../client/cache/reflector.js';
import { listerWatcherFor } from '../../client/cache/resource-lister-watcher.js';
import type { Client } from '../../client/rest/interface.js';
import { NODES } from '../../client/rest/resources.js';
import type { Logger } from '../../machinery/logger.js';
import type { RuntimeService } from '../runtime/interface.js';
import type { Node } from '../types.js';

export interface NodeWatchOptions {
  readonly client: Client;
  readonly nodeName: string;
  readonly runtime: Pick<RuntimeService, 'updateRuntimeConfig'>;
  readonly logger: Logger;
  readonly onNode?: (node: Node | undefined) => void;
  readonly onPodCIDR?: (podCIDR: string) => void;
}

export interface NodeWatch {
  /** The latest Node seen (by the watch or given to `observe`). */
  readonly node: Node | undefined;
  /** Another fresher copy of the Node (a registration or status write returned it). */
  observe(node: Node): void;
  start(): void;
  stop(): void;
}

export function newNodeWatch(options: NodeWatchOptions): NodeWatch {
  let latest: Node | undefined;
  let configuredCIDR = '';
  let configuring: Promise<void> = Promise.resolve();

  const rv = (n: Node | undefined): number => Number(n?.metadata.resourceVersion ?? '0');

  const configure = (cidr: string): void => {
    configuring = configuring.then(async () => {
      if (cidr === configuredCIDR) return;
      try {
        await options.runtime.updateRuntimeConfig({ podCIDR: cidr });
        configuredCIDR = cidr;
        options.logger.info({ podCIDR: cidr }, 'Updating Pod CIDR');
        options.onPodCIDR?.(cidr);
      } catch (e: unknown) {
        options.logger.error({ err: e, podCIDR: cidr }, 'Failed to update pod CIDR');
      }
    });
  };

  const set = (node: Node | undefined): void => {
    // A status write may return an object older than one the watch already gave: keep the newest.
    if (node !== undefined && latest !== undefined && rv(node) !== 0 && rv(node) < rv(latest)) return;
    latest = node;
    options.onNode?.(node);
    const cidr = node?.spec?.podCIDR ?? '';
    if (cidr !== '' && cidr !== configuredCIDR) configure(cidr);
  };

  const reflector = new Reflector<Node>(
    listerWatcherFor(options.client.resource<Node>(NODES), { fieldSelector: `metadata.name=${options.nodeName}` }),
    {
      replace: (items) => set(items.find((n) => n.metadata.name === options.nodeName)),
      apply: (change: ReflectorChange<Node>) => set(change.type === 'DELETED' ? undefined : change.object),
      progress: () => undefined,
    },
    { name: `node ${options.nodeName}`, maxBackoffMs: 5_000, onError: (message, error) => options.logger.warn({ err: error }, `node watch: ${message}`) },
  );

  return {
    get node() {
      return latest;
    },
    observe: set,
    start: () => reflector.start(),
    stop: () => reflector.stop(),
  };
}
