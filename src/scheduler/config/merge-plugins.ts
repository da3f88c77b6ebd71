/**
 * A profile's plugins over the defaults, as upstream's v1 defaulting does
 * (mergePlugins / mergePluginSet), extension point by extension point:
 * - a default disabled by name (or all of them by '*') is dropped;
 * - a default that the profile enables again is replaced in place (keeping
 *   the default order) by the profile's entry (e.g. to change its weight);
 * - the profile's other enabled plugins follow, in their order;
 * - `disabled` keeps the profile's entries, so that the framework can also
 *   skip multiPoint plugins at that extension point.
 */
import type { PluginRef, PluginSet, Plugins } from './types.js';

const POINTS = [
  'multiPoint',
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
] as const satisfies ReadonlyArray<keyof Plugins>;

export function mergePluginSet(defaults: PluginSet, custom: PluginSet): PluginSet {
  const disabledNames = new Set<string>();
  const disabled: PluginRef[] = [];
  for (const ref of [...(custom.disabled ?? []), ...(defaults.disabled ?? [])]) {
    disabled.push({ name: ref.name });
    disabledNames.add(ref.name);
  }
  const customEnabled = custom.enabled ?? [];
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabledNames.has('*')) {
    for (const ref of defaults.enabled ?? []) {
      if (disabledNames.has(ref.name)) continue;
      const index = customEnabled.findIndex((c) => c.name === ref.name);
      if (index >= 0) {
        replaced.add(index);
        enabled.push(customEnabled[index]!);
      } else {
        enabled.push(ref);
      }
    }
  }
  customEnabled.forEach((ref, index) => {
    if (!replaced.has(index)) enabled.push(ref);
  });
  return { enabled, disabled };
}

export function mergePlugins(defaults: Plugins, custom: Plugins | undefined): Plugins {
  const merged: Record<string, PluginSet> = {};
  for (const point of POINTS) {
    const set = mergePluginSet(defaults[point] ?? {}, custom?.[point] ?? {});
    if ((set.enabled?.length ?? 0) > 0 || (set.disabled?.length ?? 0) > 0) merged[point] = set;
  }
  return merged as Plugins;
}

export const EXTENSION_POINT_FIELDS: readonly (keyof Plugins)[] = POINTS;
