/**
 * The field manager of a served (sub)resource, and the one step every write
 * handler takes: record in managedFields what the request's manager changed.
 */
import type { ResourceInfo, SubresourceInfo } from '../../api/scheme.js';
import type { KubeObject } from '../../machinery/meta.js';
import { FieldSet, fieldElement, type JsonValue } from './field-set.js';
import { FieldManager } from './field-manager.js';
import { builtinTypeSchema } from './schema.js';
import { cloneJson } from './json-clone.js';

type JsonObject = { [key: string]: JsonValue };

const cache = new Map<string, FieldManager | undefined>();
/** trackWrite's object is its own (handed over or copied); one options object for every call of this hot path. */
const GIVEN = { nextIsOwn: true } as const;

/**
 * The field manager of a resource or subresource. Entries always describe
 * the resource's own kind: a write through `scale` is recorded on the
 * parent's paths (`.spec.replicas`) with subresource "scale", as upstream's
 * scale handler records it. Undefined for other subresources of another kind.
 */
export function fieldManagerFor(resource: ResourceInfo, subresource: SubresourceInfo | undefined): FieldManager | undefined {
  const key = `${resource.group}/${resource.version}/${resource.resource}/${subresource?.name ?? ''}`;
  const cached = cache.get(key);
  if (cached !== undefined || cache.has(key)) return cached;
  let manager: FieldManager | undefined;
  const sameKind = subresource === undefined || (subresource.kind.kind === resource.kind && subresource.kind.group === resource.group);
  if (sameKind || subresource?.name === 'scale') {
    const apiVersion = resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
    const schema = builtinTypeSchema();
    manager = new FieldManager({
      schema,
      type: schema.typeOfKind(resource.group, resource.version, resource.kind),
      apiVersion,
      kind: resource.kind,
      subresource: subresource?.name ?? '',
      resetFields: resetFields(resource, subresource),
    });
  }
  cache.set(key, manager);
  return manager;
}

/**
 * What a write through this endpoint may not change, so never owns
 * (upstream's GetResetFields): the status of a resource that has a status
 * endpoint, and the spec through that endpoint.
 */
function resetFields(resource: ResourceInfo, subresource: SubresourceInfo | undefined): FieldSet {
  if (subresource?.name === 'status') return FieldSet.of([fieldElement('spec')]);
  if (subresource === undefined && resource.subresources.some((s) => s.name === 'status')) return FieldSet.of([fieldElement('status')]);
  return new FieldSet();
}

/**
 * The object a create, update or patch stores, with managedFields updated
 * for `manager` (operation Update). Defaults are filled in first, as
 * upstream's decoder fills them before the field manager runs, so defaulted
 * fields belong to the writer too. `next` is left as it is, unless the caller
 * hands it over (`options.handOver`: nobody else holds it), which saves a copy.
 */
export function trackWrite(
  target: { resource: ResourceInfo; subresource: SubresourceInfo | undefined; defaults: (o: KubeObject) => void },
  live: KubeObject | undefined,
  next: KubeObject,
  manager: string,
  options: { handOver?: boolean } = {},
): KubeObject {
  const fm = fieldManagerFor(target.resource, target.subresource);
  if (fm === undefined) return next;
  const defaulted = options.handOver === true ? next : (cloneJson(next as unknown as JsonObject) as unknown as KubeObject);
  target.defaults(defaulted);
  // `defaulted` is this call's own (handed over or copied): the field manager may keep it as the result.
  return fm.update(live as unknown as JsonObject | undefined, defaulted as unknown as JsonObject, manager, GIVEN) as unknown as KubeObject;
}
