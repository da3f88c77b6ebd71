/**
 * Upstream's default plugins (kubescheduler.config.k8s.io/v1
 * getDefaultPlugins, v1.33): all enabled through multiPoint, in this order,
 * with these score weights. The volume plugins (VolumeRestrictions,
 * NodeVolumeLimits, VolumeBinding, VolumeZone) are upstream defaults that
 * k8ts does not have (no persistent volumes yet): they are left out, and so
 * is any other default that the registry in use does not hold.
 */
import type { PluginRef } from './types.js';

export const UPSTREAM_DEFAULT_PLUGINS: readonly PluginRef[] = [
  { name: 'SchedulingGates' },
  { name: 'PrioritySort' },
  { name: 'NodeUnschedulable' },
  { name: 'NodeName' },
  { name: 'TaintToleration', weight: 3 },
  { name: 'NodeAffinity', weight: 2 },
  { name: 'NodePorts' },
  { name: 'NodeResourcesFit', weight: 1 },
  { name: 'VolumeRestrictions' },
  { name: 'NodeVolumeLimits' },
  { name: 'VolumeBinding' },
  { name: 'VolumeZone' },
  { name: 'PodTopologySpread', weight: 2 },
  { name: 'InterPodAffinity', weight: 2 },
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
];

/** Upstream defaults that k8ts does not implement. */
export const UNSUPPORTED_DEFAULT_PLUGINS: ReadonlySet<string> = new Set(['VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone']);

/** The default multiPoint plugins that `isRegistered` knows (upstream's list minus what k8ts lacks). */
export function defaultMultiPointPlugins(isRegistered: (name: string) => boolean): PluginRef[] {
  return UPSTREAM_DEFAULT_PLUGINS.filter((ref) => !UNSUPPORTED_DEFAULT_PLUGINS.has(ref.name) && isRegistered(ref.name));
}
