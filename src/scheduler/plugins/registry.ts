/**
 * The in-tree plugins: name → factory (upstream's plugins/registry.go). Each
 * plugin lives in its own folder and exports NAME and its factory; adding one
 * is one import and one line below.
 */
import type { Registry } from '../framework/interfaces.js';
import * as defaultBinder from './default-binder/default-binder.js';
import * as queueSort from './queue-sort/priority-sort.js';
import * as schedulingGates from './scheduling-gates/scheduling-gates.js';

export const IN_TREE_PLUGINS: Registry = {
  [schedulingGates.NAME]: schedulingGates.newSchedulingGates,
  [queueSort.NAME]: queueSort.newPrioritySort,
  [defaultBinder.NAME]: defaultBinder.newDefaultBinder,
};

/** The in-tree registry with out-of-tree plugins merged over it (an out-of-tree plugin of the same name wins). */
export function newRegistry(extra: Registry = {}): Registry {
  return { ...IN_TREE_PLUGINS, ...extra };
}
