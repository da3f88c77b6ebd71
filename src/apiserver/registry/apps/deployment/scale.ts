/**
 * The `scale` subresource (autoscaling/v1 Scale) of the kinds with
 * `spec.replicas` and a label selector: deployments, replica sets and
 * stateful sets (upstream's pkg/registry/apps/*\/storage ScaleREST). GET
 * shows the object as a Scale; PUT and PATCH change only `spec.replicas`,
 * through the object's own strategy (so its validation runs and its
 * generation moves), with the Scale's resourceVersion as precondition.
 */
import { FieldPath, invalid as invalidField, type FieldError } from '../../../../machinery/field-errors.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../../machinery/selectors/label-selector.js';
import { badRequest, conflict, invalid, notFound, StatusError, unsupportedMediaType } from '../../../../machinery/status.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { validateObjectMeta, type ObjectMeta } from '../../../../machinery/validation/object-meta.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../../../machinery/validation/messages.js';
import { decodeDocument, readBody } from '../../../endpoints/body.js';
import { readObject } from '../../../endpoints/decode-object.js';
import { addWarnings, parseFieldValidationParam } from '../../../endpoints/field-validation.js';
import { negotiateInput, negotiateOutput } from '../../../endpoints/negotiation.js';
import { applyPatchBody, isBodyPatchType } from '../../../endpoints/patch.js';
import { parseDryRun } from '../../../endpoints/query.js';
import type { Target, VerbHandler } from '../../../endpoints/target.js';
import type { RequestContext } from '../../../server/context.js';
import { writeObject } from '../../../server/response.js';
import { trackWrite } from '../../../fieldmanager/for-resource.js';
import { parseManagerOptions } from '../../../fieldmanager/request-options.js';

const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

interface Scalable {
  spec?: { replicas?: number; selector?: LabelSelectorObject };
  status?: { replicas?: number };
}

/** The object as upstream's scaleFrom* functions show it. */
export function scaleOf(object: KubeObject): KubeObject {
  const o = object as KubeObject & Scalable;
  let selector: string;
  try {
    selector = labelSelectorFromObject(o.spec?.selector).toString();
  } catch (e: unknown) {
    throw e instanceof StatusError ? e : badRequest(String(e));
  }
  const meta = object.metadata;
  const replicas = o.spec?.replicas ?? 0;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    // ScaleSpec.replicas is omitted when 0 (omitempty), ScaleStatus.replicas never is.
    spec: replicas === 0 ? {} : { replicas },
    status: { replicas: o.status?.replicas ?? 0, ...(selector !== '' ? { selector } : {}) },
  };
}

/** Upstream's ValidateScale. */
function validateScale(scale: KubeObject): FieldError[] {
  const errs = validateObjectMeta(scale.metadata as ObjectMeta, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas ?? 0;
  if (typeof replicas === 'number' && replicas < 0) errs.push(invalidField(FieldPath.root('spec').child('replicas'), replicas, IS_NEGATIVE_ERROR_MSG));
  return errs;
}

/**
 * Write a new Scale: `next` computes it from the current one (the request
 * body for PUT, the patched current Scale for PATCH). Upstream's
 * scaleUpdatedObjectInfo.UpdatedObject.
 */
async function writeScale(ctx: RequestContext, t: Target, next: (current: KubeObject) => KubeObject): Promise<KubeObject> {
  const dryRun = parseDryRun(ctx.query, ctx.req.method === 'PATCH' ? 'PatchOptions' : 'UpdateOptions');
  const { manager } = parseManagerOptions(ctx.query, ctx.req.headers['user-agent'], ctx.req.method === 'PATCH' ? 'PatchOptions' : 'UpdateOptions');
  const scaleResource = { group: t.resource.group, resource: `${t.resource.resource}/scale` };
  const { object } = await t.store.update(
    t.namespace,
    t.name,
    (current) => {
      if (current === undefined) throw notFound({ group: t.resource.group, resource: t.resource.resource }, t.name);
      const live = structuredClone(current);
      const scale = next(scaleOf(current));
      const meta = scale.metadata;
      if (meta.name !== t.name) throw badRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${t.name})`);
      if (meta.namespace === undefined || meta.namespace === '') meta.namespace = t.namespace;
      else if (meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const errors = validateScale(scale);
      if (errors.length > 0) throw invalid({ group: 'autoscaling', kind: 'Scale' }, t.name, errors);
      if ((meta.uid ?? '') !== '' && meta.uid !== current.metadata.uid) {
        throw conflict(scaleResource, t.name, `Precondition failed: UID in precondition: ${meta.uid ?? ''}, UID in object meta: ${current.metadata.uid ?? ''}`);
      }
      const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
      const target = current as KubeObject & Scalable;
      target.spec = { ...(target.spec ?? {}), replicas: typeof replicas === 'number' ? replicas : 0 };
      if ((meta.resourceVersion ?? '') === '') delete current.metadata.resourceVersion;
      else current.metadata.resourceVersion = meta.resourceVersion;
      return trackWrite({ ...t, defaults: (o) => t.store.strategy.defaults(o) }, live, current, manager);
    },
    { dryRun, allowCreate: false },
  );
  return scaleOf(object);
}

const getScale: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const object = await t.store.get(t.namespace, t.name);
  writeObject(ctx, 200, scaleOf(object), format);
};

const updateScale: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const body = await readObject(ctx, SCALE_KIND);
  const scale = await writeScale(ctx, t, () => structuredClone(body));
  writeObject(ctx, 200, scale, format);
};

const patchScale: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const type = negotiateInput(ctx.req.headers['content-type'], { patch: true });
  // Server-side apply of a Scale is not served (yet): the types it reads stay as they were.
  if (type === 'apply') {
    throw unsupportedMediaType('application/apply-patch+yaml', ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  }
  if (!isBodyPatchType(type)) throw badRequest(`unsupported patch type ${type}`);
  const body = await readBody(ctx.req);
  const directive = parseFieldValidationParam(ctx.query, 'PatchOptions');
  const patch = decodeDocument(body, 'json');
  let warnings: readonly string[] = [];
  const scale = await writeScale(ctx, t, (current) => {
    const patched = applyPatchBody({ type, current, body, patch, expected: SCALE_KIND, directive });
    warnings = patched.warnings;
    return patched.object;
  });
  addWarnings(ctx, warnings);
  writeObject(ctx, 200, scale, format);
};

/** The handlers of the `scale` subresource, for a definition's subresourceHandlers. */
export const scaleHandlers: Readonly<Record<string, VerbHandler>> = { get: getScale, update: updateScale, patch: patchScale };
