/**
 * The field-manager options of a write request, checked as upstream's
 * ValidateCreateOptions / ValidateUpdateOptions / ValidatePatchOptions check
 * them: a bad `fieldManager` (or `force` outside apply, or apply without a
 * manager) is a 422 Invalid of the options kind.
 */
import { FieldPath, forbidden, required, type FieldError } from '../../machinery/field-errors.js';
import { invalid } from '../../machinery/status.js';
import { validateFieldManager } from '../../machinery/validation/managed-fields.js';
import { queryBool } from '../endpoints/query.js';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

export interface ManagerOptions {
  /** The manager recorded in managedFields: `fieldManager`, else the User-Agent's product name. */
  readonly manager: string;
  /** The `fieldManager` parameter as sent ('' when absent). */
  readonly fieldManager: string;
  readonly force: boolean;
}

/** Upstream's managerOrUserAgent: the part of the User-Agent before its first `/`. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  // split('/')[0] without the array, on every write.
  const agent = userAgent ?? '';
  const slash = agent.indexOf('/');
  return slash < 0 ? agent : agent.slice(0, slash);
}

export function parseManagerOptions(query: URLSearchParams, userAgent: string | undefined, kind: OptionsKind, options: { apply?: boolean } = {}): ManagerOptions {
  const fieldManager = query.get('fieldManager') ?? '';
  const forceParam = query.get('force');
  const errors: FieldError[] = [];
  if (kind === 'PatchOptions') {
    if (options.apply !== true) {
      if (forceParam !== null) errors.push(forbidden('force', 'may not be specified for non-apply patch'));
    } else if (fieldManager === '') {
      errors.push(required('fieldManager', 'is required for apply patch'));
    }
  }
  errors.push(...validateFieldManager(fieldManager, FieldPath.root('fieldManager')));
  if (errors.length > 0) throw invalid({ group: 'meta.k8s.io', kind }, '', errors);
  return {
    manager: fieldManager !== '' ? fieldManager : managerFromUserAgent(userAgent),
    fieldManager,
    force: queryBool(forceParam),
  };
}
