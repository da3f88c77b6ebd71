/**
 * A namespace's policy: a level and version for each of enforce, audit and
 * warn, read from its pod-security.kubernetes.io/* labels over the defaults
 * (upstream's PolicyToEvaluate, including its quirks: a bad enforce level
 * enforces restricted, bad audit/warn levels fail open to privileged, and
 * warn follows a stricter enforce level when warn is not labelled).
 */
import { invalid, FieldPath, type FieldError } from '../../../../../machinery/field-errors.js';
import { compareLevels, equivalentLevelVersion, parseLevel, parseVersion, type LevelVersion } from './level-version.js';

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

/** Audit annotation keys (the plugin prefixes them with pod-security.kubernetes.io/). */
export const AUDIT_VIOLATIONS_KEY = 'audit-violations';
export const ENFORCE_POLICY_KEY = 'enforce-policy';
export const EXEMPT_KEY = 'exempt';
export const ERROR_KEY = 'error';

export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export const fullyPrivileged = (p: Policy): boolean => p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';

export const equivalentPolicy = (a: Policy, b: Policy): boolean =>
  equivalentLevelVersion(a.enforce, b.enforce) && equivalentLevelVersion(a.audit, b.audit) && equivalentLevelVersion(a.warn, b.warn);

const labelPath = (label: string): FieldPath => FieldPath.root('metadata').child('labels').key(label);

export function policyToEvaluate(labels: Readonly<Record<string, string>> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  if (labels === undefined || Object.keys(labels).length === 0) return { policy: defaults, errors: [] };
  const errors: FieldError[] = [];
  let { enforce, audit, warn } = defaults;
  const has = (label: string): boolean => Object.prototype.hasOwnProperty.call(labels, label);
  const fail = (label: string, error: string | undefined): boolean => {
    if (error === undefined) return false;
    errors.push(invalid(labelPath(label), labels[label], error));
    return true;
  };

  let hasEnforceLevel = false;
  if (has(ENFORCE_LEVEL_LABEL)) {
    const r = parseLevel(labels[ENFORCE_LEVEL_LABEL]!);
    enforce = { ...enforce, level: r.level };
    hasEnforceLevel = !fail(ENFORCE_LEVEL_LABEL, r.error);
  }
  if (has(ENFORCE_VERSION_LABEL)) {
    const r = parseVersion(labels[ENFORCE_VERSION_LABEL]!);
    enforce = { ...enforce, version: r.version };
    fail(ENFORCE_VERSION_LABEL, r.error);
  }
  if (has(AUDIT_LEVEL_LABEL)) {
    const r = parseLevel(labels[AUDIT_LEVEL_LABEL]!);
    audit = { ...audit, level: fail(AUDIT_LEVEL_LABEL, r.error) ? 'privileged' : r.level };
  }
  if (has(AUDIT_VERSION_LABEL)) {
    const r = parseVersion(labels[AUDIT_VERSION_LABEL]!);
    audit = { ...audit, version: r.version };
    fail(AUDIT_VERSION_LABEL, r.error);
  }
  const hasWarnLevel = has(WARN_LEVEL_LABEL);
  if (hasWarnLevel) {
    const r = parseLevel(labels[WARN_LEVEL_LABEL]!);
    warn = { ...warn, level: fail(WARN_LEVEL_LABEL, r.error) ? 'privileged' : r.level };
  }
  const hasWarnVersion = has(WARN_VERSION_LABEL);
  if (hasWarnVersion) {
    const r = parseVersion(labels[WARN_VERSION_LABEL]!);
    warn = { ...warn, version: r.version };
    fail(WARN_VERSION_LABEL, r.error);
  }
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(enforce.level, warn.level) > 0) {
    warn = { level: enforce.level, version: hasWarnVersion ? warn.version : enforce.version };
  }
  return { policy: { enforce, audit, warn }, errors };
}
