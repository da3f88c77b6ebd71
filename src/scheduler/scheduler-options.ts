/**
 * How a process builds and runs a scheduler (`k8ts scheduler`, the
 * benchmark, the e2e tests): newScheduler(options) in scheduler.ts returns a
 * {@link Scheduler}. Leader election is the caller's business (the command
 * runs the scheduler only while it leads).
 */
import type { Registry as PromRegistry } from 'prom-client';
import type { InformerFactory } from '../client/cache/interfaces.js';
import type { EventRecorderFactory } from '../client/record/interface.js';
import type { Client } from '../client/rest/interface.js';
import type { Logger } from '../machinery/logger.js';
import type { SchedulerConfiguration } from './config/types.js';
import type { Registry } from './framework/interfaces.js';

export interface SchedulerOptions {
  readonly client: Client;
  /** Shared informers; the scheduler asks for pods, nodes, namespaces, PodDisruptionBudgets, PriorityClasses and starts them. */
  readonly informers: InformerFactory;
  /** Events are recorded as the profile's schedulerName (`default-scheduler`). */
  readonly events: EventRecorderFactory;
  readonly logger: Logger;
  readonly config: SchedulerConfiguration;
  /** Out-of-tree plugins merged over the in-tree registry. */
  readonly extraPlugins?: Registry;
  /** Where scheduler_* metrics are registered (the command serves it on /metrics). */
  readonly metricsRegistry?: PromRegistry;
}

export interface Scheduler {
  /** Wait for the caches to sync, then schedule until the signal aborts; resolves once stopped (in-flight bindings finished or abandoned). */
  run(signal: AbortSignal): Promise<void>;
  /** The scheduling queue's pending pods (active, backoff, unschedulable, gated). */
  pendingPods(): { active: number; backoff: number; unschedulable: number; gated: number };
}
