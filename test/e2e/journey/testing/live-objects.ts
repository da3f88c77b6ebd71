/**
 * The current set of objects a watch shows (by namespace/name), kept from its
 * events, and an invariant checked at every event: the journey's "never fewer
 * than 2 Ready" and "ready endpoints never below replicas − maxUnavailable"
 * are checked this way, at each change the watch delivers, not by sampling.
 */
import type { KubectlWatch, ObservedEvent } from './kubectl-watch.js';

interface Named {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}

export interface LiveObjects<T> {
  /** The objects now. */
  current(): T[];
  /**
   * Evaluate `measure` over the current objects after every event from now on (and once now); returns a
   * handle whose `min()` is the least value seen and `stop()` ends the check.
   */
  track(measure: (objects: T[]) => number): { min(): number; values(): number[]; stop(): void };
  stop(): void;
}

const key = (o: Named): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export function liveObjects<T extends Named>(watch: KubectlWatch<T>): LiveObjects<T> {
  const objects = new Map<string, T>();
  const apply = (e: ObservedEvent<T>): void => {
    if (e.type === 'ADDED' || e.type === 'MODIFIED') objects.set(key(e.object), e.object);
    else if (e.type === 'DELETED') objects.delete(key(e.object));
  };
  for (const e of watch.events) apply(e);
  const trackers = new Set<() => void>();
  const remove = watch.onEvent((e) => {
    apply(e);
    for (const t of trackers) t();
  });
  const current = (): T[] => [...objects.values()];
  return {
    current,
    track(measure) {
      const values: number[] = [measure(current())];
      const onChange = (): void => void values.push(measure(current()));
      trackers.add(onChange);
      return { min: () => Math.min(...values), values: () => values, stop: () => trackers.delete(onChange) };
    },
    stop: remove,
  };
}
