/**
 * A ListerWatcher over one of the API server's own stores (no HTTP), so that
 * a client/cache Reflector keeps an in-process copy of a resource: the RBAC
 * authorizer reads Roles and bindings this way.
 */
import type { ListerWatcher, ReflectorEvent, WatchSubscription } from '../../../../client/cache/reflector.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { GenericStore } from '../../../registry/generic/store.js';

export function newStoreListerWatcher(store: GenericStore): ListerWatcher<KubeObject> {
  return {
    async list() {
      const list = await store.list(undefined);
      return { items: list.items, resourceVersion: list.metadata.resourceVersion ?? '' };
    },
    watch(resourceVersion: string): WatchSubscription<KubeObject> {
      let cancelled = false;
      let cancelWatch: (() => void) | undefined;
      const opened = store.watch(undefined, { resourceVersion, allowWatchBookmarks: true });
      return {
        cancel() {
          cancelled = true;
          cancelWatch?.();
          void opened.then((w) => w.cancel(), () => {});
        },
        async *[Symbol.asyncIterator](): AsyncIterator<ReflectorEvent<KubeObject>> {
          const watch = await opened;
          cancelWatch = () => watch.cancel();
          if (cancelled) {
            watch.cancel();
            return;
          }
          for await (const event of watch) {
            const rv = event.object.metadata.resourceVersion ?? String(event.revision);
            if (event.type === 'BOOKMARK') yield { type: 'BOOKMARK', resourceVersion: rv };
            else yield { type: event.type, object: event.object, resourceVersion: rv };
          }
        },
      };
    },
  };
}
