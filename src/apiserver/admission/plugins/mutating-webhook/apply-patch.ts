/**
 * A mutating webhook's JSONPatch (base64 in the response) applied to the
 * object being admitted, in place (the admission contract: mutating plugins
 * change `attributes.object`). Answers whether anything changed.
 *
 * Upstream applies it with the same library as a PATCH request's JSON patch
 * (evanphx/json-patch v4), so it goes through the same code here: removing a
 * member that is not there fails, as it does there.
 */
import { applyJsonPatch, type JsonPatchOperation } from '../../../endpoints/json-patch.js';
import { jsonEqual, type KubeObject } from '../../../../machinery/meta.js';

export function applyJSONPatchInPlace(object: KubeObject, patchBase64: string): boolean {
  const text = Buffer.from(patchBase64, 'base64').toString('utf8');
  let operations: unknown;
  try {
    operations = JSON.parse(text);
  } catch (e: unknown) {
    throw new Error(`the webhook's patch is not JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (!Array.isArray(operations)) throw new Error("the webhook's patch is not a JSON patch (an array of operations)");
  if (!operations.every((op) => typeof op === 'object' && op !== null && !Array.isArray(op))) {
    throw new Error("the webhook's patch is not a JSON patch (an array of operations)");
  }
  const result = applyJsonPatch(object, operations as JsonPatchOperation[]);
  if (!result.ok) throw new Error(`applying the webhook's JSON patch: ${result.error}`);
  const patched = result.value;
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) throw new Error("the webhook's patch did not leave an object");
  if (jsonEqual(patched, object)) return false;
  const target = object as unknown as Record<string, unknown>;
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, patched);
  return true;
}
