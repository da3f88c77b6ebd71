/**
 * The bounds a LimitRange item sets, with upstream's messages
 * (plugin/pkg/admission/limitranger/admission.go minConstraint,
 * maxConstraint, maxRequestConstraint, limitRequestRatioConstraint).
 */
import { formatAmount, nanoOf, parseAmount, type ResourceList } from '../../../../api/quota/resource-list.js';

const show = (text: string | undefined): string => {
  const amount = text === undefined ? undefined : parseAmount(text);
  return amount === undefined ? (text ?? '') : formatAmount(amount);
};

export function minConstraint(limitType: string, resource: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const request = requests[resource];
  const limit = limits[resource];
  if (request === undefined) return `minimum ${resource} usage per ${limitType} is ${show(enforced)}.  No request is specified`;
  if (nanoOf(request) < nanoOf(enforced)) return `minimum ${resource} usage per ${limitType} is ${show(enforced)}, but request is ${show(request)}`;
  if (limit !== undefined && nanoOf(limit) < nanoOf(enforced)) return `minimum ${resource} usage per ${limitType} is ${show(enforced)}, but limit is ${show(limit)}`;
  return undefined;
}

export function maxConstraint(limitType: string, resource: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const request = requests[resource];
  const limit = limits[resource];
  if (limit === undefined) return `maximum ${resource} usage per ${limitType} is ${show(enforced)}.  No limit is specified`;
  if (nanoOf(limit) > nanoOf(enforced)) return `maximum ${resource} usage per ${limitType} is ${show(enforced)}, but limit is ${show(limit)}`;
  if (request !== undefined && nanoOf(request) > nanoOf(enforced)) return `maximum ${resource} usage per ${limitType} is ${show(enforced)}, but request is ${show(request)}`;
  return undefined;
}

/** Claims: the max bounds what was requested (limits are not user input there). */
export function maxRequestConstraint(limitType: string, resource: string, enforced: string, requests: ResourceList): string | undefined {
  const request = requests[resource];
  if (request === undefined) return `maximum ${resource} usage per ${limitType} is ${show(enforced)}.  No request is specified`;
  if (nanoOf(request) > nanoOf(enforced)) return `maximum ${resource} usage per ${limitType} is ${show(enforced)}, but request is ${show(request)}`;
  return undefined;
}

/** Go's %f: six decimals. */
const sixDecimals = (value: number): string => value.toFixed(6);

export function limitRequestRatioConstraint(limitType: string, resource: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const request = nanoOf(requests[resource]);
  const limit = nanoOf(limits[resource]);
  if (requests[resource] === undefined || request === 0n) {
    return `${resource} max limit to request ratio per ${limitType} is ${show(enforced)}, but no request is specified or request is 0`;
  }
  if (limits[resource] === undefined || limit === 0n) {
    return `${resource} max limit to request ratio per ${limitType} is ${show(enforced)}, but no limit is specified or limit is 0`;
  }
  const ratio = Number(limit) / Number(request);
  // Compared exactly: limit / request > enforced  ⇔  limit × 10^9 > enforced × request.
  if (limit * 1_000_000_000n > nanoOf(enforced) * request) {
    return `${resource} max limit to request ratio per ${limitType} is ${show(enforced)}, but provided ratio is ${sixDecimals(ratio)}`;
  }
  return undefined;
}
