/**
 * The parts of the scheduler library that `k8ts scheduler` runs, behind one
 * small interface so that the command's own behaviour (flags, leader
 * election, exit codes, /healthz and /metrics) is tested apart from the
 * library: loading the configuration file and building the scheduler.
 */
import type { SchedulerConfiguration } from '../scheduler/config/types.js';
import { loadSchedulerConfiguration } from '../scheduler/config/load.js';
import { newScheduler } from '../scheduler/scheduler.js';
import type { Scheduler, SchedulerOptions } from '../scheduler/scheduler-options.js';

export interface SchedulerRuntime {
  /** The configuration of a KubeSchedulerConfiguration file with upstream's defaults filled in (no path: the defaults). Throws for a bad file. */
  loadConfiguration(path: string | undefined): Promise<SchedulerConfiguration> | SchedulerConfiguration;
  /** Build a scheduler; throws for a configuration it cannot run (an unknown plugin, bad plugin args). */
  newScheduler(options: SchedulerOptions): Scheduler;
}

/** The in-tree library. */
export const defaultSchedulerRuntime: SchedulerRuntime = {
  loadConfiguration: (path) => loadSchedulerConfiguration(path),
  newScheduler: (options) => newScheduler(options),
};
