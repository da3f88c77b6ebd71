/**
 * core/v1 ComponentStatus: computed on each read, never stored.
 *
 * Why a GenericStore subclass rather than a handler of its own (as bindings
 * and the create-only reviews have): get and list then go through the normal
 * verb handlers, so Table output, label and field selectors, Status errors,
 * the 405 for verbs the resource lacks, audit and metrics work as for every
 * other resource. Only get and list are overridden; discovery lists no other
 * verb, so the installer never routes one here.
 */
import type { KubeList, KubeObject } from '../../../../machinery/meta.js';
import { notFound } from '../../../../machinery/status.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { GenericStore, type ListParams, type StoreConfig } from '../../generic/store.js';
import { plainStrategy } from '../../generic/strategy.js';
import { newComponents, type ComponentStatusOptions, type Components } from './components.js';
import { componentStatusTable } from './table.js';

export class ComponentStatusStore extends GenericStore {
  constructor(
    config: StoreConfig,
    private readonly components: Components,
  ) {
    super(config);
  }

  override withStrategy(strategy: StoreConfig['strategy']): GenericStore {
    return new ComponentStatusStore({ ...this.config, strategy }, this.components);
  }

  override async get(_namespace: string | undefined, name: string): Promise<KubeObject> {
    const probe = this.components.get(name);
    // Upstream names the resource in the singular here: `componentstatus "x" not found`.
    if (probe === undefined) throw notFound({ group: '', resource: 'componentstatus' }, name);
    return componentStatus(name, await probe());
  }

  /** Every component, probed concurrently; the list has no resourceVersion, as upstream's. */
  override async list(_namespace: string | undefined, params: ListParams = {}): Promise<KubeList> {
    const items = await Promise.all([...this.components].map(async ([name, probe]) => componentStatus(name, await probe())));
    const match = params.predicate;
    return { apiVersion: 'v1', kind: 'ComponentStatusList', metadata: {}, items: match === undefined ? items : items.filter((o) => match(o)) };
  }

  /** Nothing is stored: any resourceVersion a client sends with a GET is as good as current. */
  override async currentRevision(): Promise<number> {
    return Number.MAX_SAFE_INTEGER;
  }
}

function componentStatus(name: string, condition: object): KubeObject {
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name }, conditions: [condition] };
}

export function componentStatusDefinition(options: ComponentStatusOptions = {}): ResourceDefinition {
  const components = newComponents(options);
  return {
    strategy: { ...plainStrategy, table: componentStatusTable },
    validateName: nameIsDNSSubdomain,
    newStore: (config) => new ComponentStatusStore(config, components),
  };
}
