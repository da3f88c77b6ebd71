/**
 * A built-in registry over in-memory storage for unit tests of admission
 * plugins, and requests run through a store with a plugin as its admission:
 * mutating before the store, validating inside it, as the handlers do.
 */
import { newBuiltinScheme } from '../../../../../api/resources.js';
import type { KubeObject } from '../../../../../machinery/meta.js';
import { newMemoryStorage } from '../../../../../storage/memory/memory-storage.js';
import { registryLookup } from '../../../../endpoints/installer.js';
import { builtinDefinitions } from '../../../../registry/builtin.js';
import { ObjectStorage } from '../../../../registry/generic/object-storage.js';
import type { GenericStore } from '../../../../registry/generic/store.js';
import { Registry } from '../../../../registry/registry.js';
import type { AdmissionAttributes, AdmissionDependencies, MutatingAdmissionPlugin, Operation, ValidatingAdmissionPlugin } from '../../../interfaces.js';

export interface Harness {
  readonly registry: Registry;
  readonly deps: AdmissionDependencies;
  store(group: string, resource: string, subresource?: string): GenericStore;
  /** Create through the resource's store with the plugin(s) as admission. */
  create(plugin: Partial<MutatingAdmissionPlugin & ValidatingAdmissionPlugin>, resource: string, namespace: string, object: KubeObject, options?: { group?: string; dryRun?: boolean }): Promise<KubeObject>;
  /** Update (PUT) through the store with the plugin as validating admission. */
  update(plugin: Partial<ValidatingAdmissionPlugin>, resource: string, namespace: string, object: KubeObject, options?: { group?: string }): Promise<KubeObject>;
  stop(): void;
}

export function attributesFor(operation: Operation, group: string, resource: string, namespace: string, object: KubeObject | undefined, oldObject: KubeObject | undefined, dryRun = false): AdmissionAttributes {
  const subject = object ?? oldObject;
  return {
    operation,
    kind: { group, version: 'v1', kind: subject?.kind ?? '' },
    resource: { group, version: 'v1', resource },
    subresource: '',
    namespace,
    name: subject?.metadata.name ?? '',
    object,
    oldObject,
    dryRun,
    userInfo: { name: 'admin', groups: ['system:masters'] },
    addWarning: () => {},
    addAuditAnnotation: () => {},
  };
}

export async function newHarness(namespaces: readonly string[] = ['default']): Promise<Harness> {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
  for (const name of namespaces) await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const abort = new AbortController();
  const deps: AdmissionDependencies = { stores: registryLookup(registry), signal: abort.signal };
  const store = (group: string, resource: string, subresource?: string): GenericStore => {
    const found = deps.stores(group, 'v1', resource, subresource);
    if (found === undefined) throw new Error(`no store of ${group}/${resource}/${subresource ?? ''}`);
    return found;
  };
  return {
    registry,
    deps,
    store,
    async create(plugin, resource, namespace, object, options = {}) {
      const group = options.group ?? '';
      const dryRun = options.dryRun ?? false;
      const body = structuredClone(object);
      if (plugin.admit !== undefined) await plugin.admit(attributesFor('CREATE', group, resource, namespace, body, undefined, dryRun));
      return store(group, resource).create(namespace, body, {
        dryRun,
        validateAdmission: async (o, old) => {
          if (plugin.validate !== undefined) await plugin.validate(attributesFor('CREATE', group, resource, namespace, o, old, dryRun));
        },
      });
    },
    async update(plugin, resource, namespace, object, options = {}) {
      const group = options.group ?? '';
      const { object: updated } = await store(group, resource).update(namespace, object.metadata.name ?? '', () => structuredClone(object), {
        validateAdmission: async (o, old) => {
          if (plugin.validate !== undefined) await plugin.validate(attributesFor('UPDATE', group, resource, namespace, o, old));
        },
      });
      return updated;
    },
    stop: () => abort.abort(),
  };
}
