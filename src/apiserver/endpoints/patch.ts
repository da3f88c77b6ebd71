/**
 * PATCH of one object: JSON patch (RFC 6902), JSON merge patch (RFC 7386) and
 * strategic merge patch (strategic-merge.ts),
 * applied to the current object inside the store's compare-and-swap loop, so a
 * concurrent write makes the patch apply again to the newer object. The
 * patched object is decoded against its kind's schema (field-validation.ts):
 * unknown fields are dropped, and with `fieldValidation` Strict or Warn (the
 * default) the patch body's own duplicate fields and the patched object's
 * unknown fields fail the request or come back as warnings.
 */
import { auditRequestObject, timeStage } from '../audit/request-audit.js';
import { admitMutating, validatingHook } from './admission.js';
import { isPlainObject, type KubeObject } from '../../machinery/meta.js';
import { badRequest, notFound, StatusError } from '../../machinery/status.js';
import { writeObject } from '../server/response.js';
import { decodeDocument, readBody } from './body.js';
import { trackWrite } from '../fieldmanager/for-resource.js';
import { parseManagerOptions } from '../fieldmanager/request-options.js';
import { handleApplyPatch } from './apply-patch.js';
import { asKubeObject, type ExpectedKind } from './decode-object.js';
import { addWarnings, parseFieldValidationParam, patchBodyStrictErrors, validatePatchedFields, type FieldValidationDirective } from './field-validation.js';
import { applyJsonPatch, type JsonPatchOperation } from './json-patch.js';
import { mergePatch } from './merge-patch.js';
import { negotiateInput, negotiateOutput } from './negotiation.js';
import { parseDryRun } from './query.js';
import { strategicMergePatchObject, strategicMergeSchemaFor } from './strategic-merge.js';
import { userOf, warnTo, type VerbHandler } from './target.js';
import { dedupOwnerReferences } from './owner-references.js';

export const handlePatch: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const type = negotiateInput(ctx.req.headers['content-type'], { patch: true });
  const expected = t.subresource?.kind ?? t.resource;
  // A kind without patch metadata refuses strategic merge before the body is read, as upstream.
  if (type === 'strategic-merge-patch') strategicMergeSchemaFor(expected);
  const dryRun = parseDryRun(ctx.query, 'PatchOptions');
  const body = await readBody(ctx.req);
  const directive = parseFieldValidationParam(ctx.query, 'PatchOptions');
  const managerOptions = parseManagerOptions(ctx.query, ctx.req.headers['user-agent'], 'PatchOptions', { apply: type === 'apply' });
  if (type === 'apply') return handleApplyPatch(ctx, t, { body, format, dryRun, directive, options: managerOptions });
  const patch = decodeDocument(body, 'json');
  auditRequestObject(ctx, patch);
  if (!isBodyPatchType(type)) throw badRequest(`unsupported patch type ${type}`);
  // Warnings of the attempt that wins (the patch applies again after a conflict).
  let warnings: readonly string[] = [];
  const validateAdmission = validatingHook(ctx, t, dryRun);
  const { object } = await timeStage(ctx, 'etcd', () => t.store.update(
    t.namespace,
    t.name,
    async (current) => {
      if (current === undefined) throw notFound({ group: t.resource.group, resource: t.resource.resource }, t.name);
      const patched = applyPatchBody({ type, current, body, patch, expected, directive });
      const deduped = dedupOwnerReferences(patched.object, 'request');
      const next = trackWrite({ ...t, defaults: (o) => t.store.strategy.defaults(o) }, current, patched.object, managerOptions.manager);
      await admitMutating(ctx, t, 'UPDATE', next, current, dryRun);
      const dedupedAfterAdmission = dedupOwnerReferences(next, 'afterMutatingAdmission');
      warnings = [...patched.warnings, ...[deduped, dedupedAfterAdmission].filter((w) => w !== undefined)];
      return next;
    },
    { dryRun, allowCreate: false, ...userOf(ctx), ...warnTo(ctx), ...(validateAdmission !== undefined ? { validateAdmission } : {}) },
  ));
  addWarnings(ctx, warnings);
  writeObject(ctx, 200, object, format);
};

export type BodyPatchType = 'json-patch' | 'merge-patch' | 'strategic-merge-patch';

export function isBodyPatchType(type: string): type is BodyPatchType {
  return type === 'json-patch' || type === 'merge-patch' || type === 'strategic-merge-patch';
}

/**
 * A JSON, merge or strategic merge patch applied to the current object and
 * decoded as `expected` (field validation as `directive` says): the one path
 * every PATCH of a stored object takes, the scale subresource's included.
 */
export function applyPatchBody(p: {
  type: BodyPatchType;
  current: KubeObject;
  body: Buffer;
  patch: unknown;
  expected: ExpectedKind;
  directive: FieldValidationDirective;
}): { object: KubeObject; warnings: readonly string[] } {
  if (p.type === 'strategic-merge-patch') {
    const smp = strategicMergePatchObject(p.current, p.body, p.patch, p.expected, p.directive);
    return { object: asKubeObject(smp.value, p.expected), warnings: smp.warnings };
  }
  // As upstream, the patch body is checked once the object is found.
  const patchErrors = p.directive === 'Ignore' ? [] : patchBodyStrictErrors(p.type, p.body);
  if (p.type === 'json-patch') checkJsonPatchShape(p.patch);
  if (p.type === 'merge-patch' && !isPlainObject(p.patch)) throw badRequest('the merge patch must be a JSON object');
  const patched = p.type === 'json-patch' ? applyJsonPatchOrFail(p.current, p.patch as JsonPatchOperation[]) : mergePatch(p.current, p.patch);
  const validated = validatePatchedFields(patched, p.expected, p.directive, patchErrors);
  return { object: asKubeObject(validated.value, p.expected), warnings: validated.warnings };
}

/** Upstream's DecodePatch: an array of objects (or nulls), else 400 with Go's unmarshal error. */
function checkJsonPatchShape(patch: unknown): void {
  if (!Array.isArray(patch)) throw badRequest(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type jsonpatch.Patch`);
  for (const op of patch) {
    if (op !== null && !isPlainObject(op)) throw badRequest(`json: cannot unmarshal ${goJsonType(op)} into Go value of type jsonpatch.Operation`);
  }
}

const goJsonType = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;

/**
 * A patch that cannot be applied is answered as upstream answers it
 * (NewGenericServerResponse(422, …) without causes): a fixed message, the
 * library's own error text not passed on, and empty details.
 */
function applyJsonPatchOrFail(current: KubeObject, operations: JsonPatchOperation[]): unknown {
  const result = applyJsonPatch(current, operations);
  if (result.ok) return result.value;
  throw new StatusError(
    { code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} },
    { cause: new Error(result.error) },
  );
}
