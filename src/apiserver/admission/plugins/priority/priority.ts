/**
 * Priority (upstream's plugin): a new pod's spec.priorityClassName becomes
 * its spec.priority (and spec.preemptionPolicy), from the PriorityClass of
 * that name, or from the class marked globalDefault when it names none (0
 * when there is none). A pod may not bring its own number, and an update keeps
 * the priority the pod was created with. At most one PriorityClass may be the
 * global default.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { forbidden, isNotFound } from '../../../../machinery/status.js';
import { watchObjects } from '../../watched-objects.js';
import type { AdmissionAttributes, AdmissionDependencies, MutatingAdmissionPlugin, ValidatingAdmissionPlugin } from '../../interfaces.js';

export const NAME = 'Priority';

type PodObject = KubeObject & Pod;
type PriorityClassObject = KubeObject & PriorityClass;

const PODS = { group: '', resource: 'pods' };
const UNKNOWN = Symbol('unknown');
const PRIORITY_CLASSES = { group: 'scheduling.k8s.io', resource: 'priorityclasses' };

function highestDefault(classes: readonly PriorityClassObject[]): PriorityClassObject | undefined {
  let best: PriorityClassObject | undefined;
  for (const item of classes) if (item.globalDefault === true && (best === undefined || item.value > best.value)) best = item;
  return best;
}

export function newPriority(deps: AdmissionDependencies): MutatingAdmissionPlugin & ValidatingAdmissionPlugin {
  const classes = () => {
    const store = deps.stores('scheduling.k8s.io', 'v1', 'priorityclasses');
    if (store === undefined) throw new Error('the scheduling.k8s.io/v1 priorityclasses resource is not served');
    return store;
  };

  // The classes in memory, fed by a watch (upstream's lister); until it has listed, and for a name it does not know, the store answers.
  const served = deps.stores('scheduling.k8s.io', 'v1', 'priorityclasses');
  const index = served === undefined ? undefined : watchObjects<PriorityClassObject>({ store: served, signal: deps.signal });
  let defaultOf: { from: readonly PriorityClassObject[]; best: PriorityClassObject | undefined } | undefined;

  /** The global default class, read from the store: the highest value among those marked globalDefault (upstream's choice when several are). */
  async function defaultClass(): Promise<PriorityClassObject | undefined> {
    const list = await classes().list(undefined, { resourceVersion: '0' });
    return highestDefault(list.items as PriorityClassObject[]);
  }

  /** The class a new pod gets when memory knows it: the named one, or the default ('' names none); UNKNOWN when the store must answer. */
  function classInMemory(className: string): PriorityClassObject | undefined | typeof UNKNOWN {
    if (index === undefined || !index.synced) return UNKNOWN;
    if (className !== '') return index.get('', className) ?? UNKNOWN;
    const all = index.all();
    if (defaultOf?.from !== all) defaultOf = { from: all, best: highestDefault(all) };
    return defaultOf.best;
  }

  async function classFromStore(a: AdmissionAttributes, className: string): Promise<PriorityClassObject | undefined> {
    if (className === '') return defaultClass();
    try {
      return (await classes().get(undefined, className)) as PriorityClassObject;
    } catch (e: unknown) {
      if (isNotFound(e)) throw forbidden(PODS, a.name, `no PriorityClass with name ${className} was found`);
      throw e;
    }
  }

  /** Set a new pod's priority from its class (undefined: no class, priority 0), refusing numbers the pod brought that differ. */
  function applyClass(a: AdmissionAttributes, spec: NonNullable<Pod['spec']>, className: string, found: PriorityClassObject | undefined): void {
    // Without any class: priority 0, preempting lower priorities (upstream's getDefaultPriority).
    let priority = 0;
    let preemptionPolicy: string | undefined = 'PreemptLowerPriority';
    if (found !== undefined) {
      if (className === '') spec.priorityClassName = found.metadata.name ?? '';
      priority = found.value;
      preemptionPolicy = found.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== priority) {
      throw forbidden(PODS, a.name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    if (preemptionPolicy !== undefined) {
      if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== preemptionPolicy) {
        throw forbidden(PODS, a.name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`);
      }
      spec.preemptionPolicy = preemptionPolicy;
    }
  }

  /** Synchronous when memory knows the class, so that the chain has nothing to wait for. */
  function admitPod(a: AdmissionAttributes): Promise<void> | undefined {
    const pod = a.object as PodObject;
    const spec = (pod.spec ??= { containers: [] });
    if (a.operation === 'UPDATE') {
      // The priority was set at creation: an update that leaves it out keeps it.
      const old = (a.oldObject as PodObject | undefined)?.spec;
      if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return undefined;
    }
    const className = spec.priorityClassName ?? '';
    const known = classInMemory(className);
    if (known !== UNKNOWN) {
      applyClass(a, spec, className, known);
      return undefined;
    }
    return classFromStore(a, className).then((found) => applyClass(a, spec, className, found));
  }

  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    admit(a) {
      if (a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === '' && a.object !== undefined) return admitPod(a);
      return undefined;
    },
    validate(a) {
      if (a.resource.group !== 'scheduling.k8s.io' || a.resource.resource !== 'priorityclasses' || a.object === undefined) return undefined;
      const pc = a.object as PriorityClassObject;
      if (pc.globalDefault !== true) return undefined;
      return (async () => {
        // Read from the store: two classes made default a moment apart must not both pass.
        const other = await defaultClass();
        if (other !== undefined && other.metadata.name !== pc.metadata.name) {
          throw forbidden(PRIORITY_CLASSES, a.name, `PriorityClass ${other.metadata.name ?? ''} is already marked as default. Only one default can exist`);
        }
      })();
    },
  };
}
