/**
 * The resource handler: routes a resource request to its store and verb
 * handler, after checking that the resource, the subresource, the verb and the
 * namespace make sense together (404, 405 otherwise).
 */
import { methodNotAllowed, resourceNotFound } from '../../machinery/status.js';
import type { AdmissionChain } from '../admission/interfaces.js';
import type { Verb } from '../../api/scheme.js';
import type { Registry } from '../registry/registry.js';
import type { Handler } from '../server/context.js';
import { handleCreate } from './create.js';
import { handleDelete, handleDeleteCollection } from './delete.js';
import { handleGet } from './get.js';
import { handleList } from './list.js';
import { handlePatch } from './patch.js';
import type { StoreLookup, Target, VerbHandler } from './target.js';
import { handleUpdate } from './update.js';
import { newWatchHandler, type WatchSettings } from './watch.js';

export interface ResourceHandlerOptions {
  readonly registry: Registry;
  readonly watch?: WatchSettings;
  /**
   * Resources that are only created and never stored (TokenReview,
   * SelfSubjectReview, …), by `group/version/resource`: cluster-scoped, POST
   * to the collection only (405 for any other verb).
   */
  readonly createOnly?: ReadonlyMap<string, Handler>;
  readonly admission?: AdmissionChain;
}

/** A StoreLookup over the registry: a resource's store, or the view of one of its subresources. */
export function registryLookup(registry: Registry): StoreLookup {
  return (group, version, resource, subresource) => {
    const entry = registry.lookup(group, version, resource);
    return subresource === undefined ? entry?.store : entry?.subresources.get(subresource)?.store;
  };
}

export function newResourceHandler(options: ResourceHandlerOptions): Handler {
  const verbs: Record<Verb, VerbHandler> = {
    get: handleGet,
    list: handleList,
    watch: newWatchHandler(options.watch),
    create: handleCreate,
    update: handleUpdate,
    patch: handlePatch,
    delete: handleDelete,
    deletecollection: handleDeleteCollection,
  };
  const admission = options.admission === undefined ? {} : { admission: options.admission };
  const lookup = registryLookup(options.registry);
  /**
   * The `bindings` resource is not stored: a POST binds the pod the body names,
   * as pods/NAME/binding does (upstream serves both for the scheduler).
   */
  const bindings: Handler = async (ctx) => {
    const info = ctx.info;
    const pods = options.registry.lookup('', 'v1', 'pods');
    const sub = pods?.subresources.get('binding');
    const handler = sub?.handlers.create;
    if (pods === undefined || sub === undefined || handler === undefined) throw resourceNotFound();
    if (info.verb !== 'create' || info.name !== '') throw methodNotAllowed();
    if (info.namespace === '') throw resourceNotFound();
    return handler(ctx, { resource: pods.info, subresource: sub.info, store: sub.store, namespace: info.namespace, name: '', lookup, ...admission });
  };
  return async (ctx) => {
    // A name a list or watch's field selector requires is for authorization and audit, not for routing.
    const info = ctx.info.nameFromFieldSelector === true ? { ...ctx.info, name: '' } : ctx.info;
    if (info.apiGroup === '' && info.apiVersion === 'v1' && info.resource === 'bindings') return bindings(ctx);
    const createOnly = options.createOnly?.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
    if (createOnly !== undefined) {
      if (info.namespace !== '' || info.subresource !== '') throw resourceNotFound();
      if (info.verb !== 'create' || info.name !== '') throw methodNotAllowed();
      return createOnly(ctx);
    }
    const entry = options.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (entry === undefined) throw resourceNotFound();
    const resource = entry.info;
    // A namespaced object is addressed inside its namespace; a cluster-scoped one is not.
    const namespace = resource.namespaced ? info.namespace : '';
    if (resource.namespaced && info.name !== '' && namespace === '') throw resourceNotFound();
    if (!resource.namespaced && info.namespace !== '' && resource.resource !== 'namespaces') throw resourceNotFound();

    if (info.subresource !== '') {
      const sub = entry.subresources.get(info.subresource);
      if (sub === undefined || info.name === '') throw resourceNotFound();
      const target: Target = { resource, subresource: sub.info, store: sub.store, namespace, name: info.name, lookup, ...admission };
      const custom = sub.handlers[info.verb];
      if (custom !== undefined) return custom(ctx, target);
      if (!(sub.info.verbs as readonly string[]).includes(info.verb)) throw methodNotAllowed();
      const handler = verbs[info.verb as Verb];
      if (handler === undefined || info.verb === 'create' || info.verb === 'delete') throw methodNotAllowed();
      return handler(ctx, target);
    }
    if (!(resource.verbs as readonly string[]).includes(info.verb)) {
      // GET on a create-only resource (bindings) and the like.
      throw methodNotAllowed();
    }
    const handler = verbs[info.verb as Verb];
    if (handler === undefined) throw methodNotAllowed();
    if (info.verb === 'create' && info.name !== '') throw methodNotAllowed();
    // A whole collection cannot be replaced or patched.
    if ((info.verb === 'update' || info.verb === 'patch') && info.name === '') throw methodNotAllowed();
    // Upstream warns on every request its handlers serve for a deprecated resource (not on a 405).
    if (resource.deprecationWarning !== undefined) ctx.warnings.push(resource.deprecationWarning);
    return handler(ctx, { resource, subresource: undefined, store: entry.store, namespace, name: info.name, lookup, ...admission });
  };
}

