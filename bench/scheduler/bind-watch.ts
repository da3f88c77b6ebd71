/**
 * Times the bindings of one namespace's pods from a watch: the moment each
 * pod's spec.nodeName is first seen set. A watch the server ends is reopened
 * where it stopped.
 */
import type { Client } from '../../src/client/rest/interface.js';
import { PODS } from '../../src/client/rest/resources.js';
import type { KubeObject } from '../../src/machinery/meta.js';

type PodLike = KubeObject & { spec?: { nodeName?: string } };

export interface BindWatch {
  /** Pods seen bound so far. */
  readonly bound: number;
  /** performance.now() of the first and the latest binding seen. */
  readonly firstBindAt: number;
  readonly lastBindAt: number;
  /** Resolves once `count` pods are bound, or at the deadline (check `bound`). */
  until(count: number, deadlineMs: number): Promise<void>;
  stop(): void;
}

export async function watchBindings(client: Client, namespace: string): Promise<BindWatch> {
  const pods = client.resource<PodLike>(PODS);
  const boundPods = new Set<string>();
  let firstBindAt = Number.NaN;
  let lastBindAt = Number.NaN;
  let resourceVersion = (await pods.list({ namespace, limit: 1 })).metadata.resourceVersion;
  let stopped = false;
  let stream: { cancel(): void } | undefined;
  const waiters = new Set<() => void>();

  void (async () => {
    while (!stopped) {
      const w = pods.watch({ namespace, ...(resourceVersion !== undefined ? { resourceVersion } : {}) });
      stream = w;
      try {
        for await (const event of w) {
          resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
          if (event.type === 'BOOKMARK' || event.type === 'DELETED') continue;
          const name = event.object.metadata.name ?? '';
          if ((event.object.spec?.nodeName ?? '') !== '' && !boundPods.has(name)) {
            const now = performance.now();
            boundPods.add(name);
            if (Number.isNaN(firstBindAt)) firstBindAt = now;
            lastBindAt = now;
            for (const wake of waiters) wake();
          }
        }
      } catch {
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();

  return {
    get bound() {
      return boundPods.size;
    },
    get firstBindAt() {
      return firstBindAt;
    },
    get lastBindAt() {
      return lastBindAt;
    },
    until: (count, deadlineMs) =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const check = (): void => {
          if (boundPods.size >= count) done();
        };
        const timer = setTimeout(done, deadlineMs);
        waiters.add(check);
        check();
      }),
    stop: () => {
      stopped = true;
      stream?.cancel();
    },
  };
}
