/**
 * The reflector's {@link ListerWatcher} over a {@link ResourceClient}: lists
 * the collection (its list's resourceVersion is the snapshot's), watches from
 * a resourceVersion with bookmarks allowed, and turns BOOKMARK events into
 * reflector bookmarks and the others into changes at their object's
 * resourceVersion. A watch ERROR (410 for an expired resourceVersion) is
 * thrown by the client's stream as a StatusError, and so by this one.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { ResourceClient, WatchStream } from '../rest/interface.js';
import type { ListerWatcher, ListSnapshot, ReflectorEvent, WatchSubscription } from './reflector.js';

export interface ListerWatcherOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export function listerWatcherFor<T extends KubeObject>(client: ResourceClient<T>, options: ListerWatcherOptions = {}): ListerWatcher<T> {
  const selection = {
    ...(options.namespace !== undefined && options.namespace !== '' ? { namespace: options.namespace } : {}),
    ...(options.labelSelector !== undefined && options.labelSelector !== '' ? { labelSelector: options.labelSelector } : {}),
    ...(options.fieldSelector !== undefined && options.fieldSelector !== '' ? { fieldSelector: options.fieldSelector } : {}),
  };
  return {
    async list(): Promise<ListSnapshot<T>> {
      const list = await client.list(selection);
      return { items: list.items, resourceVersion: list.metadata.resourceVersion ?? '' };
    },
    watch(resourceVersion: string): WatchSubscription<T> {
      const stream = client.watch({ ...selection, resourceVersion, allowWatchBookmarks: true });
      return subscriptionOf(stream);
    },
  };
}

function subscriptionOf<T extends KubeObject>(stream: WatchStream<T>): WatchSubscription<T> {
  return {
    cancel: () => stream.cancel(),
    async *[Symbol.asyncIterator](): AsyncIterator<ReflectorEvent<T>> {
      for await (const event of stream) {
        const resourceVersion = event.object.metadata.resourceVersion ?? '';
        if (event.type === 'BOOKMARK') yield { type: 'BOOKMARK', resourceVersion };
        else yield { type: event.type, object: event.object, resourceVersion };
      }
    },
  };
}
