import { timeStage } from '../audit/request-audit.js';
import { admitMutating, validatingHook } from './admission.js';
import { writeObject } from '../server/response.js';
import { readObject } from './decode-object.js';
import { negotiateOutput } from './negotiation.js';
import { parseDryRun } from './query.js';
import { userOf, warnTo, type VerbHandler } from './target.js';
import { badRequest } from '../../machinery/status.js';
import type { KubeObject } from '../../machinery/meta.js';
import { trackWrite } from '../fieldmanager/for-resource.js';
import { parseManagerOptions } from '../fieldmanager/request-options.js';
import { dedupOwnerReferencesAndWarn } from './owner-references.js';

/** POST to a collection: create an object. */
export const handleCreate: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const dryRun = parseDryRun(ctx.query, 'CreateOptions');
  const { manager } = parseManagerOptions(ctx.query, ctx.req.headers['user-agent'], 'CreateOptions');
  const body = await readObject(ctx, t.resource, 'CreateOptions');
  // The decoded body is the request's own, unless the audit log keeps it as the request object.
  const handOver = ctx.audit === undefined || !ctx.audit.keeps('Request');
  // The three fields trackWrite reads, named: a spread of the target costs several µs per create.
  const track = { resource: t.resource, subresource: t.subresource, defaults: (o: KubeObject) => t.store.strategy.defaults(o) };
  dedupOwnerReferencesAndWarn(ctx, body, 'request');
  const object = trackWrite(track, undefined, body, manager, { handOver });
  const ns = object.metadata.namespace;
  if (t.resource.namespaced && ns !== undefined && ns !== '' && ns !== t.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  await admitMutating(ctx, t, 'CREATE', object, undefined, dryRun);
  dedupOwnerReferencesAndWarn(ctx, object, 'afterMutatingAdmission');
  const validateAdmission = validatingHook(ctx, t, dryRun);
  // The created object is only encoded into the response from here on: the watch cache may share it.
  const options = { dryRun, unchangedAfterWrite: true, ...userOf(ctx), ...warnTo(ctx), ...(validateAdmission !== undefined ? { validateAdmission } : {}) };
  const created = await timeStage(ctx, 'etcd', () => t.store.create(t.namespace, object, options));
  writeObject(ctx, 201, created, format);
};
