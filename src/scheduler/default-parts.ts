/** The scheduling queue and cache implementations newScheduler uses unless given others (SchedulerInternals). */
import type { SchedulerCache } from './cache/interface.js';
import { newSchedulerCache } from './cache/cache.js';
import type { Logger } from '../machinery/logger.js';
import type { Framework } from './framework/interfaces.js';
import type { SchedulingQueue, SchedulingQueueOptions } from './queue/interface.js';
import { newPriorityQueue } from './queue/priority-queue.js';

export type QueueFactory = (frameworks: ReadonlyMap<string, Framework>, options: SchedulingQueueOptions) => SchedulingQueue;
export type CacheFactory = (options: { readonly logger?: Logger }) => SchedulerCache;

export const defaultQueueFactory: QueueFactory = (frameworks, options) => newPriorityQueue(frameworks, options);

export const defaultCacheFactory: CacheFactory = (options) => newSchedulerCache(options);
