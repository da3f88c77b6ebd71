/**
 * DELETE of one object or of a collection. DeleteOptions come from the body
 * (kubectl sends them there) or the query: gracePeriodSeconds,
 * propagationPolicy, preconditions, dryRun.
 */
import { timeStage } from '../audit/request-audit.js';
import { isPlainObject } from '../../machinery/meta.js';
import { badRequest, invalid, isNotFound } from '../../machinery/status.js';
import type { DeleteParams } from '../registry/generic/store.js';
import type { RequestContext } from '../server/context.js';
import { writeObject } from '../server/response.js';
import { decodeOptionsDocument, readBody } from './body.js';
import { negotiateOutput } from './negotiation.js';
import { parseBool, parseInt64, validDryRun } from './query.js';
import { invalid as invalidField, notSupported, type FieldError } from '../../machinery/field-errors.js';
import { selectionPredicate } from './selection.js';
import type { Target, VerbHandler } from './target.js';
import { deletionHook } from './admission.js';

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);

/**
 * DeleteOptions as upstream's delete handler reads them: from the body when
 * it has one (the query is then not read), else from the query; then
 * checked as ValidateDeleteOptions checks them, a 422 Invalid of
 * DeleteOptions.meta.k8s.io.
 */
export async function readDeleteOptions(ctx: RequestContext): Promise<DeleteParams> {
  const raw = await readBody(ctx.req);
  let options: Record<string, unknown>;
  if (raw.length > 0 && raw.toString('utf8').trim() !== '') {
    const decoded = decodeOptionsDocument(raw, ctx.req.headers['content-type']);
    if (!isPlainObject(decoded)) throw badRequest('the DeleteOptions body must be an object');
    options = decoded;
  } else {
    options = deleteOptionsFromQuery(ctx.query);
  }
  return validDeleteOptions(options);
}

export function deleteOptionsFromQuery(query: URLSearchParams): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const grace = parseInt64(query, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  const policy = query.get('propagationPolicy');
  if (policy !== null && policy !== '') options.propagationPolicy = policy;
  if (query.has('orphanDependents')) options.orphanDependents = parseBool(query, 'orphanDependents');
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) options.dryRun = dryRun;
  return options;
}

export function validDeleteOptions(options: Record<string, unknown>): DeleteParams {
  const grace = numberOrUndefined(options.gracePeriodSeconds, 'gracePeriodSeconds');
  const policy = stringOrUndefined(options.propagationPolicy, 'propagationPolicy');
  const orphan = options.orphanDependents;
  if (orphan !== undefined && orphan !== null && typeof orphan !== 'boolean') throw badRequest('orphanDependents must be a boolean');
  const dryRun = options.dryRun;
  if (dryRun !== undefined && dryRun !== null && (!Array.isArray(dryRun) || dryRun.some((v) => typeof v !== 'string'))) throw badRequest('dryRun must be a list of strings');
  const errors: FieldError[] = [];
  // Upstream checks that the pointer is set: false counts, and so does "".
  if (typeof orphan === 'boolean' && policy !== undefined) {
    errors.push(invalidField('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && !POLICIES.has(policy)) errors.push(notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  if (errors.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errors);
  const isDryRun = validDryRun((dryRun as string[] | undefined | null) ?? [], 'DeleteOptions');
  const pre = isPlainObject(options.preconditions) ? options.preconditions : {};
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre.uid === 'string') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string') preconditions.resourceVersion = pre.resourceVersion;
  return {
    dryRun: isDryRun,
    ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
    ...(policy !== undefined ? { propagationPolicy: policy as 'Orphan' | 'Background' | 'Foreground' } : {}),
    ...(orphan === true ? { orphanDependents: true } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
  };
}

function numberOrUndefined(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw badRequest(`${name} must be an integer`);
  return value;
}

function stringOrUndefined(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
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
