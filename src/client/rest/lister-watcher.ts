/**
 * The reflector's {@link ListerWatcher} over a {@link ResourceClient}: list
 * the collection, then watch it from a resourceVersion with bookmarks, as
 * client-go's ListWatch does. Informers are built on this.
 *
 * @example
 *   const reflector = new Reflector(listerWatcherFor(client.resource(PODS), { namespace: 'default' }), store);
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { ListerWatcher, ListSnapshot, ReflectorEvent, WatchSubscription } from '../cache/reflector.js';
import type { ResourceClient } from './interface.js';

export interface ListerWatcherOptions {
  /** Omit for every namespace. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Ask the server to end each watch after this long (it is then opened again); default: the server's choice. */
  readonly timeoutSeconds?: number;
}

export function listerWatcherFor<T extends KubeObject>(client: ResourceClient<T>, options: ListerWatcherOptions = {}): ListerWatcher<T> {
  const selection = {
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
    ...(options.fieldSelector === undefined ? {} : { fieldSelector: options.fieldSelector }),
  };
  return {
    async list(): Promise<ListSnapshot<T>> {
      const list = await client.list(selection);
      return { items: list.items, resourceVersion: list.metadata.resourceVersion ?? '' };
    },
    watch(resourceVersion: string): WatchSubscription<T> {
      const stream = client.watch({
        ...selection,
        resourceVersion,
        allowWatchBookmarks: true,
        ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
      });
      return {
        cancel: () => stream.cancel(),
        async *[Symbol.asyncIterator](): AsyncIterator<ReflectorEvent<T>> {
          for await (const event of stream) {
            const rv = event.object.metadata?.resourceVersion ?? '';
            if (event.type === 'BOOKMARK') yield { type: 'BOOKMARK', resourceVersion: rv };
            else yield { type: event.type, object: event.object, resourceVersion: rv };
          }
        },
      };
    },
  };
}
