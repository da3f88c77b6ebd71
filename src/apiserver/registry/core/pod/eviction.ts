/**
 * POST pods/NAME/eviction: a policy/v1 Eviction deletes the pod gracefully,
 * with the DeleteOptions it carries (grace period, preconditions,
 * propagation policy, dry run), as upstream's EvictionREST does. The answer
 * is a Success Status with code 201.
 *
 * TODO: PodDisruptionBudgets. Upstream refuses an eviction that would break
 * a PDB covering the pod (429 "Cannot evict pod as it would violate the
 * pod's disruption budget.") and decrements the PDB's disruptionsAllowed;
 * that needs the PDB store and the disruption controller's status, and comes
 * with them. Until then every eviction is allowed, as upstream does for a pod
 * no PDB selects (and for pending, terminal or terminating pods).
 */
import { isPlainObject } from '../../../../machinery/meta.js';
import { badRequest } from '../../../../machinery/status.js';
import { readObject } from '../../../endpoints/decode-object.js';
import { negotiateOutput } from '../../../endpoints/negotiation.js';
import { parseDryRun } from '../../../endpoints/query.js';
import type { VerbHandler } from '../../../endpoints/target.js';
import { writeObject } from '../../../server/response.js';
import type { DeleteParams } from '../../generic/store.js';

const POLICIES = ['Orphan', 'Background', 'Foreground'] as const;

/** The Eviction's deleteOptions as the store's delete parameters; a bad value is a 400 naming it. */
export function evictionDeleteParams(options: unknown, dryRunQuery: boolean): DeleteParams {
  if (options === undefined || options === null) return { dryRun: dryRunQuery };
  if (!isPlainObject(options)) throw badRequest('deleteOptions must be an object');
  const grace = options.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0)) {
    throw badRequest('gracePeriodSeconds must be a non-negative integer');
  }
  const policy = options.propagationPolicy;
  if (policy !== undefined && policy !== null && !(POLICIES as readonly unknown[]).includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Background", "Foreground", "Orphan"`);
  }
  const dryRun = options.dryRun;
  if (dryRun !== undefined && dryRun !== null && (!Array.isArray(dryRun) || dryRun.some((v) => v !== 'All'))) {
    throw badRequest(`Invalid dryRun value: ${JSON.stringify(dryRun)}: supported values: "All"`);
  }
  const pre = isPlainObject(options.preconditions) ? options.preconditions : {};
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre.uid === 'string' && pre.uid !== '') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string' && pre.resourceVersion !== '') preconditions.resourceVersion = pre.resourceVersion;
  return {
    dryRun: dryRunQuery || (Array.isArray(dryRun) && dryRun.includes('All')),
    ...(typeof grace === 'number' ? { gracePeriodSeconds: grace } : {}),
    ...(typeof policy === 'string' ? { propagationPolicy: policy as DeleteParams['propagationPolicy'] & string } : {}),
    ...(options.orphanDependents === true ? { orphanDependents: true } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
  };
}

const createEviction: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const eviction = await readObject(ctx, { group: 'policy', version: 'v1', kind: 'Eviction' });
  const ns = eviction.metadata.namespace;
  if (ns !== undefined && ns !== '' && ns !== t.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if ((eviction.metadata.name ?? '') !== t.name) throw badRequest('name in URL does not match name in Eviction object');
  const params = evictionDeleteParams(eviction.deleteOptions, parseDryRun(ctx.query));
  await t.store.delete(t.namespace, t.name, params);
  writeObject(ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, format);
};

export const evictionHandlers: Readonly<Record<string, VerbHandler>> = { create: createEviction };
