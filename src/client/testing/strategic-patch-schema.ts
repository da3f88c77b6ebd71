/**
 * A small {@link PatchSchema} for the fake client's strategic merge patches:
 * the merge keys of the lists controllers and kubectl patch most (containers
 * and env by name, container ports by containerPort, service ports by port,
 * conditions by type, ownerReferences by uid, finalizers as a set, …),
 * known by field name rather than from the API's OpenAPI as the API server
 * knows them. Any other list is replaced, as for a field with no strategy.
 */
import { NO_PATCH_META, type PatchMeta, type PatchMetaLookup, type PatchSchema } from '../../machinery/strategic-merge-patch/patch-meta.js';

const MERGE_BY = (mergeKey: string): PatchMeta => ({ strategies: ['merge'], mergeKey });

const LISTS: Readonly<Record<string, PatchMeta>> = {
  containers: MERGE_BY('name'),
  initContainers: MERGE_BY('name'),
  ephemeralContainers: MERGE_BY('name'),
  env: MERGE_BY('name'),
  volumes: { strategies: ['merge', 'retainKeys'], mergeKey: 'name' },
  volumeMounts: MERGE_BY('mountPath'),
  volumeDevices: MERGE_BY('devicePath'),
  imagePullSecrets: MERGE_BY('name'),
  hostAliases: MERGE_BY('ip'),
  ownerReferences: MERGE_BY('uid'),
  finalizers: MERGE_BY(''),
  conditions: MERGE_BY('type'),
  podIPs: MERGE_BY('ip'),
  hostIPs: MERGE_BY('ip'),
  topologySpreadConstraints: MERGE_BY('topologyKey'),
};

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

class FieldNameSchema implements PatchSchema {
  readonly name = 'struct';

  /** @param field the field this position is the value (or the list element) of */
  constructor(private readonly field: string) {}

  lookupObjectField(key: string): PatchMetaLookup<PatchSchema> {
    return { schema: new FieldNameSchema(key), meta: NO_PATCH_META };
  }

  lookupListField(key: string): PatchMetaLookup<PatchSchema> {
    if (key === 'ports') return { schema: new FieldNameSchema(key), meta: MERGE_BY(CONTAINER_LISTS.has(this.field) ? 'containerPort' : 'port') };
    return { schema: new FieldNameSchema(key), meta: LISTS[key] ?? NO_PATCH_META };
  }
}

/** The schema of a whole object. */
export const FAKE_STRATEGIC_PATCH_SCHEMA: PatchSchema = new FieldNameSchema('');
