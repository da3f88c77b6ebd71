/**
 * The in-tree plugins: name → factory (upstream's plugins/registry.go). Each
 * plugin lives in its own folder and exports NAME and its factory; adding one
 * is one import and one line below.
 */
import type { Registry } from '../framework/interfaces.js';
import * as defaultBinder from './default-binder/default-binder.js';
import * as defaultPreemption from './default-preemption/default-preemption.js';
import * as imageLocality from './image-locality/image-locality.js';
import * as interPodAffinity from './inter-pod-affinity/inter-pod-affinity.js';
import * as nodeAffinity from './node-affinity/node-affinity.js';
import * as nodeName from './node-name/node-name.js';
import * as nodePorts from './node-ports/node-ports.js';
import * as balancedAllocation from './node-resources-balanced-allocation/node-resources-balanced-allocation.js';
import * as nodeResourcesFit from './node-resources-fit/node-resources-fit.js';
import * as nodeUnschedulable from './node-unschedulable/node-unschedulable.js';
import * as podTopologySpread from './pod-topology-spread/pod-topology-spread.js';
import * as queueSort from './queue-sort/priority-sort.js';
import * as schedulingGates from './scheduling-gates/scheduling-gates.js';
import * as taintToleration from './taint-toleration/taint-toleration.js';

export const IN_TREE_PLUGINS: Registry = {
  [schedulingGates.NAME]: schedulingGates.newSchedulingGates,
  [queueSort.NAME]: queueSort.newPrioritySort,
  [nodeUnschedulable.NAME]: nodeUnschedulable.newNodeUnschedulable,
  [nodeName.NAME]: nodeName.newNodeName,
  [taintToleration.NAME]: taintToleration.newTaintToleration,
  [nodeAffinity.NAME]: nodeAffinity.newNodeAffinity,
  [nodePorts.NAME]: nodePorts.newNodePorts,
  [nodeResourcesFit.NAME]: nodeResourcesFit.newNodeResourcesFit,
  [podTopologySpread.NAME]: podTopologySpread.newPodTopologySpread,
  [interPodAffinity.NAME]: interPodAffinity.newInterPodAffinity,
  [defaultPreemption.NAME]: defaultPreemption.newDefaultPreemption,
  [balancedAllocation.NAME]: balancedAllocation.newNodeResourcesBalancedAllocation,
  [imageLocality.NAME]: imageLocality.newImageLocality,
  [defaultBinder.NAME]: defaultBinder.newDefaultBinder,
};

/** The in-tree registry with out-of-tree plugins merged over it (an out-of-tree plugin of the same name wins). */
export function newRegistry(extra: Registry = {}): Registry {
  return { ...IN_TREE_PLUGINS, ...extra };
}
