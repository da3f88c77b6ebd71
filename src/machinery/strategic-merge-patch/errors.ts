/**
 * Errors of a strategic merge patch. Upstream's API server answers each with
 * a status code of its own (handlers/patch.go): a malformed directive is the
 * client's 400, a list of lists 422, and anything else reaches the client as
 * a 500 with no reason and the error's text, which is what kubectl prints
 * (`Error from server: map: map[image:nginx] does not contain declared merge key: name`).
 */
import { goFormat, goFormatS, goTypeName } from './go-values.js';

export type StrategicMergePatchErrorKind = 'BadRequest' | 'Unprocessable' | 'Other';

export class StrategicMergePatchError extends Error {
  override readonly name = 'StrategicMergePatchError';
  constructor(
    message: string,
    readonly kind: StrategicMergePatchErrorKind = 'Other',
  ) {
    super(message);
  }
}

// The sentinel errors of upstream's mergepatch package, by their text.
export const badPatchFormatForPrimitiveList = (): StrategicMergePatchError => new StrategicMergePatchError('invalid patch format of primitive list', 'BadRequest');
export const badPatchFormatForRetainKeys = (): StrategicMergePatchError => new StrategicMergePatchError('invalid patch format of retainKeys', 'BadRequest');
export const badPatchFormatForSetElementOrderList = (): StrategicMergePatchError =>
  new StrategicMergePatchError('invalid patch format of setElementOrder list', 'BadRequest');
export const noListOfLists = (): StrategicMergePatchError => new StrategicMergePatchError('lists of lists are not supported', 'Unprocessable');

export const noMergeKey = (m: unknown, mergeKey: string): StrategicMergePatchError =>
  new StrategicMergePatchError(`map: ${goFormat(m)} does not contain declared merge key: ${mergeKey}`);

/** `expected a map[string]interface {}, but received a string` */
export const badArgType = (expectedTypeName: string, actual: unknown): StrategicMergePatchError =>
  new StrategicMergePatchError(`expected a ${expectedTypeName}, but received a ${goTypeName(actual)}`);

export const badPatchType = (directive: unknown, m: unknown): StrategicMergePatchError =>
  new StrategicMergePatchError(`unknown patch type: ${goFormatS(directive)} in map: ${goFormat(m)}`);
