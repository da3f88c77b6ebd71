/**
 * The status conditions the namespace controller keeps on a terminating
 * namespace, with upstream's types, reasons and messages: each type is True
 * with a failure reason while that kind of trouble lasts, and False with its
 * "ok" reason otherwise. Pure functions: the deleter collects what happened,
 * these turn it into conditions.
 */
import { formatTime } from '../../machinery/meta.js';

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export const DISCOVERY_FAILURE = 'NamespaceDeletionDiscoveryFailure';
export const GROUP_VERSION_PARSING_FAILURE = 'NamespaceDeletionGroupVersionParsingFailure';
export const CONTENT_FAILURE = 'NamespaceDeletionContentFailure';
export const CONTENT_REMAINING = 'NamespaceContentRemaining';
export const FINALIZERS_REMAINING = 'NamespaceFinalizersRemaining';

/** The types the controller owns, in upstream's order. */
export const CONDITION_TYPES = [DISCOVERY_FAILURE, GROUP_VERSION_PARSING_FAILURE, CONTENT_FAILURE, CONTENT_REMAINING, FINALIZERS_REMAINING] as const;

const OK: Readonly<Record<string, { reason: string; message: string }>> = {
  [DISCOVERY_FAILURE]: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  [GROUP_VERSION_PARSING_FAILURE]: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  [CONTENT_FAILURE]: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  [CONTENT_REMAINING]: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  [FINALIZERS_REMAINING]: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

/** What one pass of the deleter saw. */
export interface DeletionReport {
  /** Discovery failed (message of the error). */
  readonly discoveryError?: string;
  /** Group versions that could not be parsed (message of the error). */
  readonly groupVersionError?: string;
  /** One message per resource whose content could not be deleted. */
  readonly contentErrors: readonly string[];
  /** `pods.` (resource.group) → how many remain. */
  readonly remainingByResource: ReadonlyMap<string, number>;
  /** finalizer → how many remaining objects carry it. */
  readonly remainingByFinalizer: ReadonlyMap<string, number>;
}

const sorted = (items: string[]): string[] => items.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The failing conditions a report gives (types absent here are "ok"). */
export function failureConditions(report: DeletionReport, now: Date): NamespaceCondition[] {
  const time = formatTime(now);
  const conditions: NamespaceCondition[] = [];
  const add = (type: string, reason: string, message: string): void => {
    conditions.push({ type, status: 'True', lastTransitionTime: time, reason, message });
  };
  if (report.discoveryError !== undefined) add(DISCOVERY_FAILURE, 'DiscoveryFailed', report.discoveryError);
  if (report.groupVersionError !== undefined) add(GROUP_VERSION_PARSING_FAILURE, 'GroupVersionParsingFailed', report.groupVersionError);
  if (report.contentErrors.length > 0) {
    const messages = sorted([...report.contentErrors]);
    add(CONTENT_FAILURE, 'ContentDeletionFailed', `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(', ')}`);
  }
  const resources = sorted([...report.remainingByResource].filter(([, n]) => n > 0).map(([r, n]) => `${r} has ${n} resource instances`));
  if (report.remainingByResource.size > 0) add(CONTENT_REMAINING, 'SomeResourcesRemain', `Some resources are remaining: ${resources.join(', ')}`);
  const finalizers = sorted([...report.remainingByFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`));
  if (report.remainingByFinalizer.size > 0) add(FINALIZERS_REMAINING, 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`);
  return conditions;
}

/**
 * The namespace's conditions after a pass: every owned type set to its
 * failure or its ok variant; lastTransitionTime moves only when the status
 * does. Returns whether anything changed (upstream's updateConditions).
 */
export function updateConditions(
  existing: readonly NamespaceCondition[],
  failures: readonly NamespaceCondition[],
  now: Date,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const conditions = existing.map((c) => ({ ...c }));
  let changed = false;
  for (const type of CONDITION_TYPES) {
    const wanted = failures.find((c) => c.type === type) ?? { type, status: 'False' as const, lastTransitionTime: formatTime(now), ...OK[type] };
    const old = conditions.find((c) => c.type === type);
    if (old === undefined) {
      conditions.push({ ...wanted });
      changed = true;
    } else if (old.status !== wanted.status || old.reason !== wanted.reason || old.message !== wanted.message) {
      if (old.status !== wanted.status) old.lastTransitionTime = formatTime(now);
      old.status = wanted.status;
      if (wanted.reason !== undefined) old.reason = wanted.reason;
      if (wanted.message !== undefined) old.message = wanted.message;
      changed = true;
    }
  }
  return { conditions, changed };
}
