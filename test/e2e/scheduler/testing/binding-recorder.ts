/**
 * Watches the pods of a namespace and records every binding it sees: a pod's
 * spec.nodeName going from empty to a node. A pod bound twice (or moved)
 * shows up as two entries, so "each pod bound exactly once" is checkable.
 * It also records every nominatedNodeName a pod carried.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../../../src/client/rest/interface.js';
import { PODS } from '../../../../src/client/rest/resources.js';
import type { KubeObject } from '../../../../src/machinery/meta.js';

export type PodObject = KubeObject & Pod;

export interface BindingRecorder {
  /** pod name → the nodes it was bound to, in order (one entry when bound once). */
  readonly bindings: ReadonlyMap<string, readonly string[]>;
  /** pod name → every status.nominatedNodeName seen. */
  readonly nominations: ReadonlyMap<string, readonly string[]>;
  /** Names of pods deleted so far. */
  readonly deleted: ReadonlySet<string>;
  /** The node a pod is bound to now, if any. */
  nodeOf(pod: string): string | undefined;
  stop(): void;
}

/** Start watching from now: call it before creating the pods it should see. */
export async function recordBindings(client: Client, namespace: string): Promise<BindingRecorder> {
  const pods = client.resource<PodObject>(PODS);
  const bindings = new Map<string, string[]>();
  const nominations = new Map<string, string[]>();
  const deleted = new Set<string>();
  const current = new Map<string, string>();
  let resourceVersion = (await pods.list({ namespace, limit: 1 })).metadata.resourceVersion;
  let stopped = false;
  let watch: { cancel(): void } | undefined;

  const observe = (type: string, pod: PodObject): void => {
    const name = pod.metadata.name ?? '';
    if (type === 'DELETED') {
      deleted.add(name);
      current.delete(name);
      return;
    }
    const node = pod.spec?.nodeName ?? '';
    if (node !== '' && current.get(name) !== node) {
      current.set(name, node);
      bindings.set(name, [...(bindings.get(name) ?? []), node]);
    }
    const nominated = pod.status?.nominatedNodeName ?? '';
    if (nominated !== '' && nominations.get(name)?.at(-1) !== nominated) nominations.set(name, [...(nominations.get(name) ?? []), nominated]);
  };

  void (async () => {
    // A watch the server ends is reopened where it stopped, so no event is missed or seen twice.
    while (!stopped) {
      const w = pods.watch({ namespace, ...(resourceVersion !== undefined ? { resourceVersion } : {}) });
      watch = w;
      try {
        for await (const event of w) {
          if (stopped) break;
          resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
          if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') observe(event.type, event.object);
        }
      } catch {
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();

  return {
    bindings,
    nominations,
    deleted,
    nodeOf: (pod) => current.get(pod),
    stop: () => {
      stopped = true;
      watch?.cancel();
    },
  };
}
