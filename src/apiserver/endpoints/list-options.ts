/**
 * Upstream's ValidateListOptions (apimachinery's meta internalversion
 * validation), which ListResource runs on the decoded query before it touches
 * storage: the resourceVersionMatch and sendInitialEvents rules of a list and
 * of a watch. Breaking them is a 422 Invalid of kind ListOptions.meta.k8s.io
 * with one cause per rule, e.g. `ListOptions.meta.k8s.io "" is invalid:
 * resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless
 * resourceVersion is provided`.
 */
import { forbidden, notSupported, type FieldError } from '../../machinery/field-errors.js';
import { invalid } from '../../machinery/status.js';
import { queryBool } from './query.js';

const LIST_OPTIONS = { group: 'meta.k8s.io', kind: 'ListOptions' };

export function listOptionsErrors(query: URLSearchParams, watch: boolean): FieldError[] {
  const match = query.get('resourceVersionMatch') ?? '';
  const rv = query.get('resourceVersion') ?? '';
  const hasContinue = (query.get('continue') ?? '') !== '';
  const sendInitialEvents = query.has('sendInitialEvents') ? queryBool(query.get('sendInitialEvents')) : undefined;
  const errs: FieldError[] = [];
  if (watch) {
    if (sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan') errs.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
      if (sendInitialEvents && !queryBool(query.get('allowWatchBookmarks'))) {
        errs.push(forbidden('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true'));
      }
    }
    if (match !== '') {
      if (sendInitialEvents === undefined) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (hasContinue) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return errs;
  }
  if (match !== '') {
    if (rv === '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (hasContinue) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (sendInitialEvents !== undefined) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/** Throws upstream's 422 when the query breaks a rule of ListOptions. */
export function validateListOptions(query: URLSearchParams, watch: boolean): void {
  const errs = listOptionsErrors(query, watch);
  if (errs.length > 0) throw invalid(LIST_OPTIONS, '', errs);
}
