/**
 * The parts of the scheduler library that `k8ts scheduler` runs, behind one
 * small interface so that the command's own behaviour (flags, leader
 * election, exit codes, /healthz and /metrics) is tested apart from the
 * library: loading the configuration file and building the scheduler.
 */
import type { SchedulerConfiguration } from '../scheduler/config/types.js';
import type { Scheduler, SchedulerOptions } from '../scheduler/scheduler-options.js';

export interface SchedulerRuntime {
  /** The configuration of a KubeSchedulerConfiguration file with upstream's defaults filled in (no path: the defaults). Throws for a bad file. */
  loadConfiguration(path: string | undefined): Promise<SchedulerConfiguration> | SchedulerConfiguration;
  /** Build a scheduler; throws for a configuration it cannot run (an unknown plugin, bad plugin args). */
  newScheduler(options: SchedulerOptions): Scheduler;
}

interface SchedulerModule {
  newScheduler(options: SchedulerOptions): Scheduler;
}
interface ConfigModule {
  loadSchedulerConfiguration(path?: string): Promise<SchedulerConfiguration> | SchedulerConfiguration;
}

/**
 * The in-tree library. Its modules are imported by name at run time until
 * they are merged beside this command (then these become static imports).
 */
export async function loadSchedulerRuntime(): Promise<SchedulerRuntime> {
  const schedulerModule: string = '../scheduler/scheduler.js';
  const configModule: string = '../scheduler/config/load.js';
  const { newScheduler } = (await import(schedulerModule)) as SchedulerModule;
  const { loadSchedulerConfiguration } = (await import(configModule)) as ConfigModule;
  return {
    loadConfiguration: (path) => (path === undefined ? loadSchedulerConfiguration() : loadSchedulerConfiguration(path)),
    newScheduler: (options) => newScheduler(options),
  };
}
