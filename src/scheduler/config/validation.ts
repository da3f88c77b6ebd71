/**
 * Validation of a defaulted configuration (upstream's
 * ValidateKubeSchedulerConfiguration, plus the plugin-name checks that
 * upstream makes when it builds the frameworks, here reported by field).
 */
import { duplicate, invalid, required, type FieldError } from '../../machinery/field-errors.js';
import type { Registry } from '../framework/interfaces.js';
import { formatGoDuration } from '../framework/waiting-pods.js';
import { EXTENSION_POINT_FIELDS } from './merge-plugins.js';
import type { SchedulerConfiguration } from './types.js';

function validatePercentage(field: string, value: number | undefined, errors: FieldError[]): void {
  if (value === undefined) return;
  if (value < 0 || value > 100) errors.push(invalid(field, value, 'not in valid range [0-100]'));
}

export function validateSchedulerConfiguration(config: SchedulerConfiguration, registry: Registry): FieldError[] {
  const errors: FieldError[] = [];
  validatePercentage('percentageOfNodesToScore', config.percentageOfNodesToScore, errors);
  if (config.podInitialBackoffSeconds <= 0) errors.push(invalid('podInitialBackoffSeconds', config.podInitialBackoffSeconds, 'must be greater than 0'));
  if (config.podMaxBackoffSeconds < config.podInitialBackoffSeconds) {
    errors.push(invalid('podMaxBackoffSeconds', config.podMaxBackoffSeconds, 'must be greater than or equal to PodInitialBackoffSeconds'));
  }
  const le = config.leaderElection;
  if (le.leaderElect) {
    const durations = [
      ['leaderElection.leaseDuration', le.leaseDurationMs],
      ['leaderElection.renewDeadline', le.renewDeadlineMs],
      ['leaderElection.retryPeriod', le.retryPeriodMs],
    ] as const;
    for (const [field, ms] of durations) if (ms <= 0) errors.push(invalid(field, formatGoDuration(ms), 'must be greater than zero'));
    if (le.leaseDurationMs <= le.renewDeadlineMs) errors.push(invalid('leaderElection.leaseDuration', formatGoDuration(le.leaseDurationMs), 'LeaseDuration must be greater than RenewDeadline'));
    if (le.resourceName === '') errors.push(required('leaderElection.resourceName'));
    if (le.resourceNamespace === '') errors.push(required('leaderElection.resourceNamespace'));
  }
  if (config.profiles.length === 0) errors.push(required('profiles'));
  const names = new Map<string, number>();
  config.profiles.forEach((profile, i) => {
    const path = `profiles[${i}]`;
    if (profile.schedulerName === '') errors.push(required(`${path}.schedulerName`));
    else if (names.has(profile.schedulerName)) errors.push(duplicate(`${path}.schedulerName`, profile.schedulerName));
    else names.set(profile.schedulerName, i);
    validatePercentage(`${path}.percentageOfNodesToScore`, profile.percentageOfNodesToScore, errors);
    for (const point of EXTENSION_POINT_FIELDS) {
      const set = profile.plugins?.[point];
      set?.enabled?.forEach((ref, j) => {
        const field = `${path}.plugins.${point}.enabled[${j}]`;
        if (ref.name === '') errors.push(required(`${field}.name`));
        else if (registry[ref.name] === undefined) errors.push(invalid(`${field}.name`, ref.name, 'no plugin of this name is registered'));
        if (ref.weight !== undefined && ref.weight < 0) errors.push(invalid(`${field}.weight`, ref.weight, 'must be greater than or equal to 0'));
      });
    }
    const seen = new Set<string>();
    profile.pluginConfig?.forEach((pc, j) => {
      const field = `${path}.pluginConfig[${j}].name`;
      if (pc.name === '') errors.push(required(field));
      else if (seen.has(pc.name)) errors.push(duplicate(field, pc.name));
      seen.add(pc.name);
    });
  });
  const canon = JSON.stringify(config.profiles[0]?.plugins?.queueSort ?? {});
  config.profiles.forEach((profile, i) => {
    if (i === 0) return;
    const queueSort = profile.plugins?.queueSort ?? {};
    if (JSON.stringify(queueSort) !== canon) errors.push(invalid(`profiles[${i}].plugins.queueSort`, queueSort, 'must be the same for all profiles'));
  });
  return errors;
}
