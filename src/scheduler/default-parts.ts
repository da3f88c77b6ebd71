/**
 * The scheduling queue and cache implementations newScheduler uses by
 * default. They live in queue/ and cache/ (another branch); until they are
 * merged, a scheduler must be given its own (SchedulerInternals).
 */
import type { SchedulerCache } from './cache/interface.js';
import type { Framework } from './framework/interfaces.js';
import type { SchedulingQueue, SchedulingQueueOptions } from './queue/interface.js';

export type QueueFactory = (frameworks: ReadonlyMap<string, Framework>, options: SchedulingQueueOptions) => SchedulingQueue;
export type CacheFactory = () => SchedulerCache;

export const defaultQueueFactory: QueueFactory = () => {
  throw new Error('the scheduling queue (src/scheduler/queue) is not merged yet: pass SchedulerInternals.newQueue');
};

export const defaultCacheFactory: CacheFactory = () => {
  throw new Error('the scheduler cache (src/scheduler/cache) is not merged yet: pass SchedulerInternals.newCache');
};
