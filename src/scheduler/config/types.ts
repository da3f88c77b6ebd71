/**
 * The scheduler's configuration: the subset of upstream's
 * KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) that k8ts reads
 * from `k8ts scheduler --config FILE` (YAML or JSON). Field names as upstream;
 * a file may set only some fields, the loader fills upstream's defaults.
 */

export interface PluginRef {
  readonly name: string;
  /** Score plugins only; default 1 (upstream's default plugins carry their own: TaintToleration 3, NodeAffinity 2, …). */
  readonly weight?: number;
}

export interface PluginSet {
  readonly enabled?: readonly PluginRef[];
  /** `{name: '*'}` disables every default plugin of this extension point. */
  readonly disabled?: readonly PluginRef[];
}

export interface Plugins {
  readonly preEnqueue?: PluginSet;
  readonly queueSort?: PluginSet;
  readonly preFilter?: PluginSet;
  readonly filter?: PluginSet;
  readonly postFilter?: PluginSet;
  readonly preScore?: PluginSet;
  readonly score?: PluginSet;
  readonly reserve?: PluginSet;
  readonly permit?: PluginSet;
  readonly preBind?: PluginSet;
  readonly bind?: PluginSet;
  readonly postBind?: PluginSet;
  /** Enables a plugin at every extension point it implements. */
  readonly multiPoint?: PluginSet;
}

export interface PluginConfig {
  readonly name: string;
  /** The plugin's args object (e.g. NodeResourcesFitArgs); its factory validates it. */
  readonly args?: unknown;
}

export interface Profile {
  /** default-scheduler unless set; pods choose a profile by spec.schedulerName. */
  readonly schedulerName: string;
  /** 0 or absent: use the top-level value. */
  readonly percentageOfNodesToScore?: number;
  readonly plugins?: Plugins;
  readonly pluginConfig?: readonly PluginConfig[];
}

export interface LeaderElectionConfiguration {
  readonly leaderElect: boolean;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly resourceNamespace: string;
  readonly resourceName: string;
}

/** A configuration with every default filled in. */
export interface SchedulerConfiguration {
  /** 0: adaptive (upstream's default: 50% − nodes/125, at least 5%), else a fixed percentage. */
  readonly percentageOfNodesToScore: number;
  readonly podInitialBackoffSeconds: number;
  readonly podMaxBackoffSeconds: number;
  readonly profiles: readonly Profile[];
  /** Upstream: leaderElect true, 15 s / 10 s / 2 s, kube-system/kube-scheduler. */
  readonly leaderElection: LeaderElectionConfiguration;
}
