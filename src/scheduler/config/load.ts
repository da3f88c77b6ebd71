/**
 * Reading a scheduler configuration file (KubeSchedulerConfiguration,
 * kubescheduler.config.k8s.io/v1, YAML or JSON): parse, fill upstream's
 * defaults, validate. Every mistake is reported with the field it is in, in
 * upstream's field-error wording (`profiles[1].schedulerName: Duplicate
 * value: "default-scheduler"`); several at once as upstream aggregates them.
 *
 * Defaults (upstream v1.33): one profile `default-scheduler` when none is
 * given; each profile's plugins are the default multiPoint plugins merged with
 * the profile's own (see merge-plugins.ts and default-plugins.ts);
 * percentageOfNodesToScore 0 (adaptive), podInitialBackoffSeconds 1,
 * podMaxBackoffSeconds 10, leader election on with 15 s / 10 s / 2 s on the
 * lease kube-system/kube-scheduler.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { formatFieldErrors, invalid, type FieldError } from '../../machinery/field-errors.js';
import { isPlainObject } from '../../machinery/meta.js';
import type { Registry } from '../framework/interfaces.js';
import { IN_TREE_PLUGINS } from '../plugins/registry.js';
import { defaultMultiPointPlugins } from './default-plugins.js';
import { parseGoDuration } from './go-duration.js';
import { EXTENSION_POINT_FIELDS, mergePlugins } from './merge-plugins.js';
import type { LeaderElectionConfiguration, PluginConfig, PluginRef, PluginSet, Plugins, Profile, SchedulerConfiguration } from './types.js';
import { validateSchedulerConfiguration } from './validation.js';

export const SCHEDULER_CONFIG_API_VERSION = 'kubescheduler.config.k8s.io/v1';
export const SCHEDULER_CONFIG_KIND = 'KubeSchedulerConfiguration';
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export interface LoadOptions {
  /** The plugins that exist (default: the in-tree registry): defaults it lacks are left out, unknown names are errors. */
  readonly registry?: Registry;
}

/** A bad configuration file; the message names the file (when there is one) and every bad field. */
export class SchedulerConfigurationError extends Error {
  constructor(
    message: string,
    readonly fieldErrors: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'SchedulerConfigurationError';
  }
}

/** Top-level fields of upstream's KubeSchedulerConfiguration that k8ts accepts and ignores. */
const IGNORED_FIELDS = new Set([
  'parallelism',
  'clientConnection',
  'healthzBindAddress',
  'metricsBindAddress',
  'enableProfiling',
  'enableContentionProfiling',
  'debuggingConfiguration',
  'delayCacheUntilActive',
  'podMaxInUnschedulablePodsDuration',
]);
const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'percentageOfNodesToScore', 'podInitialBackoffSeconds', 'podMaxBackoffSeconds', 'profiles', 'leaderElection', 'extenders']);

/** The configuration from a file (none: every default). Throws SchedulerConfigurationError. */
export function loadSchedulerConfiguration(path?: string, options: LoadOptions = {}): SchedulerConfiguration {
  if (path === undefined) return defaultSchedulerConfiguration(options);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e: unknown) {
    throw new SchedulerConfigurationError(`cannot read the scheduler configuration ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return parseSchedulerConfiguration(text, options);
  } catch (e: unknown) {
    if (e instanceof SchedulerConfigurationError) throw new SchedulerConfigurationError(`${path}: ${e.message}`, e.fieldErrors);
    throw e;
  }
}

/** Every default: one profile, default-scheduler, with the default plugins. */
export function defaultSchedulerConfiguration(options: LoadOptions = {}): SchedulerConfiguration {
  return parseSchedulerConfiguration(JSON.stringify({ apiVersion: SCHEDULER_CONFIG_API_VERSION, kind: SCHEDULER_CONFIG_KIND }), options);
}

/** The configuration from YAML or JSON text. Throws SchedulerConfigurationError. */
export function parseSchedulerConfiguration(text: string, options: LoadOptions = {}): SchedulerConfiguration {
  const registry = options.registry ?? IN_TREE_PLUGINS;
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e: unknown) {
    throw new SchedulerConfigurationError(`not valid YAML or JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isPlainObject(doc)) throw new SchedulerConfigurationError('a KubeSchedulerConfiguration must be an object');
  if (doc.apiVersion !== SCHEDULER_CONFIG_API_VERSION || doc.kind !== SCHEDULER_CONFIG_KIND) {
    throw new SchedulerConfigurationError(
      `apiVersion ${JSON.stringify(doc.apiVersion ?? '')} kind ${JSON.stringify(doc.kind ?? '')} is not supported: want apiVersion "${SCHEDULER_CONFIG_API_VERSION}" and kind "${SCHEDULER_CONFIG_KIND}"`,
    );
  }
  const errors: FieldError[] = [];
  for (const key of Object.keys(doc)) {
    if (!KNOWN_FIELDS.has(key) && !IGNORED_FIELDS.has(key)) errors.push({ type: 'FieldValueNotSupported', field: key, value: key, detail: 'unknown field' });
  }
  if (Array.isArray(doc.extenders) && doc.extenders.length > 0) errors.push(invalid('extenders', `${doc.extenders.length} extender(s)`, 'scheduler extenders are not supported by k8ts'));
  const reader = new Reader(errors);
  const percentage = reader.integer(doc.percentageOfNodesToScore, 'percentageOfNodesToScore') ?? 0;
  const podInitialBackoffSeconds = reader.integer(doc.podInitialBackoffSeconds, 'podInitialBackoffSeconds') ?? 1;
  const podMaxBackoffSeconds = reader.integer(doc.podMaxBackoffSeconds, 'podMaxBackoffSeconds') ?? 10;
  const leaderElection = reader.leaderElection(doc.leaderElection);
  const defaultPlugins: Plugins = { multiPoint: { enabled: defaultMultiPointPlugins((name) => registry[name] !== undefined) } };
  const rawProfiles = doc.profiles === undefined || doc.profiles === null ? [{}] : doc.profiles;
  const profiles: Profile[] = [];
  if (!Array.isArray(rawProfiles)) {
    errors.push(invalid('profiles', rawProfiles, 'must be a list'));
  } else {
    rawProfiles.forEach((raw, i) => {
      const profile = reader.profile(raw, `profiles[${i}]`);
      if (profile === undefined) return;
      profiles.push({ ...profile, plugins: mergePlugins(defaultPlugins, profile.plugins) });
    });
  }
  if (errors.length > 0) throw new SchedulerConfigurationError(formatFieldErrors(errors), errors);
  const config: SchedulerConfiguration = { percentageOfNodesToScore: percentage, podInitialBackoffSeconds, podMaxBackoffSeconds, profiles, leaderElection };
  const problems = validateSchedulerConfiguration(config, registry);
  if (problems.length > 0) throw new SchedulerConfigurationError(formatFieldErrors(problems), problems);
  return config;
}

/** Reads the untyped document into the typed shape, collecting type errors by field. */
class Reader {
  constructor(private readonly errors: FieldError[]) {}

  integer(value: unknown, field: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      this.errors.push(invalid(field, value, 'must be an integer'));
      return undefined;
    }
    return value;
  }

  string(value: unknown, field: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.errors.push(invalid(field, value, 'must be a string'));
      return undefined;
    }
    return value;
  }

  object(value: unknown, field: string): Record<string, unknown> | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) {
      this.errors.push(invalid(field, value, 'must be an object'));
      return undefined;
    }
    return value;
  }

  list(value: unknown, field: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.errors.push(invalid(field, value, 'must be a list'));
      return [];
    }
    return value;
  }

  duration(value: unknown, field: string, fallbackMs: number): number {
    const text = this.string(value, field);
    if (text === undefined) return fallbackMs;
    try {
      return parseGoDuration(text);
    } catch (e: unknown) {
      this.errors.push(invalid(field, text, e instanceof Error ? e.message : String(e)));
      return fallbackMs;
    }
  }

  leaderElection(value: unknown): LeaderElectionConfiguration {
    const le = this.object(value, 'leaderElection') ?? {};
    let leaderElect = true;
    if (le.leaderElect !== undefined && le.leaderElect !== null) {
      if (typeof le.leaderElect === 'boolean') leaderElect = le.leaderElect;
      else this.errors.push(invalid('leaderElection.leaderElect', le.leaderElect, 'must be a boolean'));
    }
    return {
      leaderElect,
      leaseDurationMs: this.duration(le.leaseDuration, 'leaderElection.leaseDuration', 15_000),
      renewDeadlineMs: this.duration(le.renewDeadline, 'leaderElection.renewDeadline', 10_000),
      retryPeriodMs: this.duration(le.retryPeriod, 'leaderElection.retryPeriod', 2_000),
      resourceNamespace: this.string(le.resourceNamespace, 'leaderElection.resourceNamespace') ?? 'kube-system',
      resourceName: this.string(le.resourceName, 'leaderElection.resourceName') ?? 'kube-scheduler',
    };
  }

  profile(value: unknown, field: string): Profile | undefined {
    if (value === undefined || value === null) return { schedulerName: DEFAULT_SCHEDULER_NAME };
    const raw = this.object(value, field);
    if (raw === undefined) return undefined;
    const schedulerName = this.string(raw.schedulerName, `${field}.schedulerName`) ?? DEFAULT_SCHEDULER_NAME;
    const percentage = this.integer(raw.percentageOfNodesToScore, `${field}.percentageOfNodesToScore`);
    const plugins = this.plugins(raw.plugins, `${field}.plugins`);
    const pluginConfig: PluginConfig[] = [];
    this.list(raw.pluginConfig, `${field}.pluginConfig`).forEach((entry, j) => {
      const pc = this.object(entry, `${field}.pluginConfig[${j}]`);
      if (pc === undefined) return;
      const name = this.string(pc.name, `${field}.pluginConfig[${j}].name`) ?? '';
      pluginConfig.push(pc.args === undefined ? { name } : { name, args: pc.args });
    });
    return {
      schedulerName,
      ...(percentage === undefined ? {} : { percentageOfNodesToScore: percentage }),
      ...(plugins === undefined ? {} : { plugins }),
      ...(pluginConfig.length === 0 ? {} : { pluginConfig }),
    };
  }

  plugins(value: unknown, field: string): Plugins | undefined {
    const raw = this.object(value, field);
    if (raw === undefined) return undefined;
    const out: Record<string, PluginSet> = {};
    for (const key of Object.keys(raw)) {
      if (!(EXTENSION_POINT_FIELDS as readonly string[]).includes(key)) {
        this.errors.push({ type: 'FieldValueNotSupported', field: `${field}.${key}`, value: key, detail: 'unknown extension point' });
        continue;
      }
      const set = this.object(raw[key], `${field}.${key}`);
      if (set === undefined) continue;
      out[key] = { enabled: this.refs(set.enabled, `${field}.${key}.enabled`), disabled: this.refs(set.disabled, `${field}.${key}.disabled`) };
    }
    return out as Plugins;
  }

  refs(value: unknown, field: string): PluginRef[] {
    const refs: PluginRef[] = [];
    this.list(value, field).forEach((entry, j) => {
      const ref = this.object(entry, `${field}[${j}]`);
      if (ref === undefined) return;
      const name = this.string(ref.name, `${field}[${j}].name`) ?? '';
      const weight = this.integer(ref.weight, `${field}[${j}].weight`);
      refs.push(weight === undefined ? { name } : { name, weight });
    });
    return refs;
  }
}
