/**
 * DELETE of one object or of a collection. DeleteOptions come from the body
 * (kubectl sends them there) or the query: gracePeriodSeconds,
 * propagationPolicy, preconditions, dryRun.
 */
import { timeStage } from '../audit/request-audit.js';
import { isPlainObject } from '../../machinery/meta.js';
import { badRequest, isNotFound } from '../../machinery/status.js';
import type { DeleteParams } from '../registry/generic/store.js';
import type { RequestContext } from '../server/context.js';
import { writeObject } from '../server/response.js';
import { decodeOptionsDocument, readBody } from './body.js';
import { negotiateOutput } from './negotiation.js';
import { parseDryRun, parseNonNegativeInt } from './query.js';
import { selectionPredicate } from './selection.js';
import type { Target, VerbHandler } from './target.js';
import { deletionHook } from './admission.js';

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);

export async function readDeleteOptions(ctx: RequestContext): Promise<DeleteParams> {
  let body: Record<string, unknown> = {};
  const raw = await readBody(ctx.req);
  if (raw.length > 0 && raw.toString('utf8').trim() !== '') {
    const decoded = decodeOptionsDocument(raw, ctx.req.headers['content-type']);
    if (!isPlainObject(decoded)) throw badRequest('the DeleteOptions body must be an object');
    body = decoded;
  }
  const dryRun = parseDryRun(ctx.query) || (Array.isArray(body.dryRun) && body.dryRun.includes('All'));
  const grace = parseNonNegativeInt(ctx.query, 'gracePeriodSeconds') ?? numberOrUndefined(body.gracePeriodSeconds, 'gracePeriodSeconds');
  const policy = ctx.query.get('propagationPolicy') ?? (typeof body.propagationPolicy === 'string' ? body.propagationPolicy : undefined);
  if (policy !== undefined && policy !== null && policy !== '' && !POLICIES.has(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Background", "Foreground", "Orphan"`);
  }
  const orphan = ctx.query.get('orphanDependents') ?? body.orphanDependents;
  const pre = isPlainObject(body.preconditions) ? body.preconditions : {};
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre.uid === 'string') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string') preconditions.resourceVersion = pre.resourceVersion;
  return {
    dryRun,
    ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
    ...(policy !== undefined && policy !== null && policy !== '' ? { propagationPolicy: policy as 'Orphan' | 'Background' | 'Foreground' } : {}),
    ...(orphan === true || orphan === 'true' ? { orphanDependents: true } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
  };
}

function numberOrUndefined(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw badRequest(`${name} must be a non-negative integer`);
  return value;
}

function withDeletionAdmission(ctx: RequestContext, t: Target, params: DeleteParams): DeleteParams {
  const admitDeletion = deletionHook(ctx, t, params.dryRun === true);
  return admitDeletion === undefined ? params : { ...params, admitDeletion };
}

export const handleDelete: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const params = withDeletionAdmission(ctx, t, await readDeleteOptions(ctx));
  const { object, deleted } = await timeStage(ctx, 'etcd', () => t.store.delete(t.namespace, t.name, params));
  if (!deleted || t.store.returnsDeletedObject) {
    writeObject(ctx, 200, object, format);
    return;
  }
  // Upstream's finalizeDelete: an object removed at once (dry run or not) is
  // reported by a Success Status naming it, the resource in details.kind.
  const info = t.store.resource;
  const details = {
    name: object.metadata.name ?? t.name,
    ...(info.group !== '' ? { group: info.group } : {}),
    kind: info.resource,
    ...(object.metadata.uid !== undefined ? { uid: object.metadata.uid } : {}),
  };
  writeObject(ctx, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, format);
};

/** DELETE of a collection: every object the selectors match, one by one. */
export const handleDeleteCollection: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const params = withDeletionAdmission(ctx, t, await readDeleteOptions(ctx));
  const predicate = selectionPredicate(ctx.query, t);
  const list = await timeStage(ctx, 'etcd', () => t.store.list(t.namespace, predicate !== undefined ? { predicate } : {}));
  const deleted = [];
  for (const item of list.items) {
    try {
      const { object } = await t.store.delete(item.metadata.namespace, item.metadata.name ?? '', params);
      deleted.push(object);
    } catch (e: unknown) {
      // Already gone: someone else deleted it meanwhile, which is what we wanted.
      if (!isNotFound(e)) throw e;
    }
  }
  writeObject(ctx, 200, { ...list, items: deleted }, format);
};
