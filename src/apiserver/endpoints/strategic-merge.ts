/**
 * PATCH with application/strategic-merge-patch+json, as upstream's
 * handlers/patch.go applies it (smpPatcher):
 *
 * - only kinds with patch metadata (the built-in ones) take it; for any other
 *   kind the content type is a 415 listing the other patch types, as for a
 *   custom resource upstream;
 * - the body must decode into a JSON object (`null` is an empty patch); with
 *   fieldValidation Strict or Warn its duplicate keys are strict errors;
 * - the patch applies to the current object (machinery/strategic-merge-patch);
 *   its errors are 400 (a malformed directive), 422 (a list of lists) or a
 *   500 with upstream's text and no reason (anything else: a missing merge
 *   key, an unknown `$patch`, …);
 * - the result is decoded against the kind's schema as the unstructured
 *   converter decodes a map (its own type errors: `cannot restore slice from
 *   string`): a wrong type is a 422, unknown fields are dropped and reported
 *   as fieldValidation asks. The 422's value is the patch as Go's `%+v`
 *   prints what is left of it.
 */
import type { GroupVersionKind } from '../../api/scheme.js';
import { invalid as invalidField } from '../../machinery/field-errors.js';
import { isPlainObject, type KubeObject } from '../../machinery/meta.js';
import { badRequest, invalid, StatusError, unsupportedMediaType } from '../../machinery/status.js';
import { strategicMergePatchInPlace } from '../../machinery/strategic-merge-patch/apply.js';
import { StrategicMergePatchError } from '../../machinery/strategic-merge-patch/errors.js';
import { goFormat, type JsonMap } from '../../machinery/strategic-merge-patch/go-values.js';
import type { PatchSchema } from '../../machinery/strategic-merge-patch/patch-meta.js';
import { builtInTypes, decodeTyped, type FieldValidationDirective, type GoType, type ValidatedObject } from './field-validation.js';
import { PATCH_TYPES } from './negotiation.js';
import { builtInStrategicMergeMetadata } from './strategic-merge-meta.js';
import { nodeFromValue, parseJsonNodes, splitYamlWarnings } from './strict-json.js';

export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/** The patch metadata of the kind a strategic merge patch targets; 415 when it has none. */
export function strategicMergeSchemaFor(kind: GroupVersionKind, metadata = builtInStrategicMergeMetadata()): PatchSchema {
  const schema = metadata.forKind(kind);
  if (schema === undefined) {
    throw unsupportedMediaType(
      STRATEGIC_MERGE_PATCH,
      Object.keys(PATCH_TYPES).filter((t) => t !== STRATEGIC_MERGE_PATCH),
    );
  }
  return schema;
}

/**
 * The strict errors of the patch body itself (its duplicate keys), or none
 * under Ignore; a body that is not a JSON object is a 400 in Go's words.
 */
export function strategicPatchBodyErrors(body: Buffer, patch: unknown, directive: FieldValidationDirective): string[] {
  if (patch !== null && !isPlainObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${jsonKindName(patch)} into Go value of type map[string]interface {}`);
  }
  if (directive === 'Ignore') return [];
  let result: ReturnType<typeof decodeTyped>;
  try {
    result = decodeTyped(parseJsonNodes(body.toString('utf8')), PATCH_MAP, { strict: true });
  } catch (e: unknown) {
    throw asStatusError(e);
  }
  if (result.error !== undefined) throw badRequest(result.error);
  return [...result.strictErrors];
}

/** The patch body decodes into a map[string]interface{}, as upstream's handler decodes it. */
const PATCH_MAP: GoType = { kind: 'map', goType: 'map[string]interface {}', elem: { kind: 'any', goType: 'interface {}' } };

/** The current object patched by a request's body (`patch` is the body decoded), decoded as its kind. */
export function strategicMergePatchObject(current: KubeObject, body: Buffer, patch: unknown, expected: GroupVersionKind, directive: FieldValidationDirective): ValidatedObject {
  const schema = strategicMergeSchemaFor(expected);
  const patchErrors = strategicPatchBodyErrors(body, patch, directive);
  return applyStrategicMergePatch(current, patch, schema, expected, directive, patchErrors);
}

/** Apply a decoded strategic merge patch to the current object and decode the result as its kind. */
export function applyStrategicMergePatch(
  current: KubeObject,
  patch: unknown,
  schema: PatchSchema,
  expected: GroupVersionKind,
  directive: FieldValidationDirective,
  patchErrors: readonly string[],
): ValidatedObject {
  let patchMap: JsonMap = {};
  let patched: JsonMap;
  try {
    if (isPlainObject(patch)) patchMap = structuredClone(patch);
    patched = strategicMergePatchInPlace(structuredClone(current) as JsonMap, patchMap, schema);
  } catch (e: unknown) {
    throw asStatusError(e);
  }
  return decodePatched(patched, patchMap, expected, directive, patchErrors);
}

/** handlers/patch.go interpretStrategicMergePatchError, and a too-deep document as the client's error. */
function asStatusError(e: unknown): unknown {
  if (e instanceof StrategicMergePatchError) {
    if (e.kind === 'BadRequest') return badRequest(e.message);
    if (e.kind === 'Unprocessable') return new StatusError({ code: 422, reason: 'Invalid', message: e.message });
    return new StatusError({ code: 500, reason: '', message: e.message });
  }
  if (e instanceof RangeError) return badRequest('error decoding the request body as JSON: exceeded max depth');
  return e;
}

/** The patched object decoded as its kind (field-validation.ts), with the SMP handler's 422 value. */
function decodePatched(patched: JsonMap, patchLeft: JsonMap, expected: GroupVersionKind, directive: FieldValidationDirective, patchErrors: readonly string[]): ValidatedObject {
  const types = builtInTypes();
  const type = types.ofKind(expected) ?? types.untypedKind(expected.kind);
  const strict = directive !== 'Ignore';
  let result: ReturnType<typeof decodeTyped>;
  try {
    result = decodeTyped(nodeFromValue(patched), type, { strict, sortKeys: true, converter: true });
  } catch (e: unknown) {
    throw asStatusError(e);
  }
  const invalidPatch = (message: string): StatusError => invalid({ group: '', kind: '' }, '', [invalidField('patch', goFormat(patchLeft), message)]);
  if (result.error !== undefined) throw invalidPatch(result.error);
  const strictErrors = strict ? [...patchErrors, ...result.strictErrors] : [];
  if (strictErrors.length > 0 && directive === 'Strict') throw invalidPatch(`strict decoding error: ${strictErrors.join(', ')}`);
  return { value: result.value, warnings: strictErrors.flatMap(splitYamlWarnings) };
}

/** How Go's decoder names a JSON value in a type error. */
function jsonKindName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}
