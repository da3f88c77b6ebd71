/**
 * Which resource a storage key belongs to, for the `type` label of the etcd
 * metrics: upstream's groupResource.String() (`pods`, `deployments.apps`,
 * `nodes` for keys under /registry/minions, `endpoints` for
 * /registry/services/endpoints).
 *
 *   const typeOf = newStorageTypeResolver('/registry', storedResources(scheme, definitions));
 *   typeOf('/registry/deployments/default/web')   // 'deployments.apps'
 */
import type { Scheme } from '../../api/scheme.js';
import type { ResourceDefinition } from '../registry/definition.js';
import { definitionKey } from '../registry/registry.js';

/** Maps a storage key to its `type` label. */
export type StorageTypeOf = (key: string) => string;

export interface StoredResource {
  /** The key path under the prefix, of one or two segments: `pods`, `services/specs`, `minions`. */
  readonly path: string;
  readonly group: string;
  readonly resource: string;
}

/** The stored resources of a scheme, with their storage paths (as Registry builds its keys). */
export function storedResources(scheme: Scheme, definitions: ReadonlyMap<string, ResourceDefinition>): StoredResource[] {
  const stored: StoredResource[] = [];
  for (const info of scheme.resources()) {
    const definition = definitions.get(definitionKey(info.group, info.kind));
    // A version stored as another resource's version (events.k8s.io events) is that resource in storage.
    if (definition === undefined || info.storageVersion !== undefined) continue;
    stored.push({ path: definition.storagePath ?? info.resource, group: info.group, resource: info.resource });
  }
  return stored;
}

/**
 * A resolver for keys under `prefix` (`--etcd-prefix`). A key of no known
 * resource gets its first path segment under the prefix; a key outside the
 * prefix gets ''.
 */
export function newStorageTypeResolver(prefix: string, resources: Iterable<StoredResource>): StorageTypeOf {
  const root = `${prefix.replace(/\/+$/, '')}/`;
  const byPath = new Map<string, string>();
  /** First segments of paths that have more than one (`services` of `services/specs`). */
  const deeper = new Set<string>();
  for (const r of resources) {
    const path = r.path.replace(/^\/+|\/+$/g, '');
    byPath.set(path, r.group === '' ? r.resource : `${r.resource}.${r.group}`);
    const slash = path.indexOf('/');
    if (slash > 0) deeper.add(path.slice(0, slash));
  }
  return (key) => {
    if (!key.startsWith(root)) return '';
    const start = root.length;
    const end = key.indexOf('/', start);
    const first = end < 0 ? key.slice(start) : key.slice(start, end);
    if (end >= 0 && deeper.has(first)) {
      // Longest match first: services/specs before services.
      let next = key.indexOf('/', end + 1);
      if (next < 0) next = key.length;
      const type = byPath.get(key.slice(start, next));
      if (type !== undefined) return type;
    }
    return byPath.get(first) ?? first;
  };
}
