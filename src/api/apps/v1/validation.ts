/**
 * Validation of apps/v1 kinds with upstream's messages
 * (pkg/apis/apps/validation and the update rules of pkg/registry/apps/*
 * strategies): deployments, replica sets, stateful sets, daemon sets and
 * controller revisions, on create, update and status update.
 */
import type {
  ControllerRevision,
  DaemonSet,
  DaemonSetStatus,
  Deployment,
  DeploymentStatus,
  DeploymentStrategy,
  ReplicaSet,
  ReplicaSetStatus,
  StatefulSet,
  StatefulSetStatus,
} from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { LabelSelector as LabelSelectorObject } from 'kubernetes-types/meta/v1.js';
import { FieldPath, forbidden, invalid, notSupported, required, RawValue, type FieldError } from '../../../machinery/field-errors.js';
import { labelSelectorFromObject } from '../../../machinery/selectors/label-selector.js';
import { semanticDeepEqual } from '../../../machinery/validation/immutable.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/messages.js';
import { validateAnnotations, validateLabelSelector, validateLabels } from '../../../machinery/validation/labels.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../../../machinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMeta } from '../../../machinery/validation/object-meta.js';
import {
  intOrStringValue,
  isNotMoreThan100Percent,
  percentValue,
  validateNonnegativeField,
  validatePositiveIntOrPercent,
  type IntOrString,
} from '../../../machinery/validation/values.js';
import { goLabelSelector, goStringMap } from '../../core/v1/go-values.js';
import { validatePodTemplateSpec } from '../../core/v1/validation.js';

const SPEC = FieldPath.root('spec');
const STATUS = FieldPath.root('status');
const SELECTOR_MISMATCH = '`selector` does not match template `labels`';

const meta = (o: { metadata?: unknown }): ObjectMeta => (o.metadata ?? {}) as ObjectMeta;

/** Whether the selector (as upstream's LabelSelectorAsSelector) matches the labels; undefined when it does not convert. */
function selectorMatches(selector: LabelSelectorObject | undefined, labels: Record<string, string> | undefined): { ok: boolean; empty: boolean } | undefined {
  try {
    const s = labelSelectorFromObject(selector);
    return { ok: s.matches(labels), empty: s.empty() };
  } catch {
    return undefined;
  }
}

/** The value a struct-typed field prints as in a message when it is not worth rendering in full. */
const goStruct = (type: string, value: unknown): RawValue => new RawValue(`${type}${JSON.stringify(value ?? {})}`);

/** The selector of a controller: required, valid, not empty; the template must carry the labels it selects. */
function validateControllerSelector(
  selector: LabelSelectorObject | undefined,
  template: PodTemplateSpec | undefined,
  kind: string,
  errs: FieldError[],
): boolean {
  if (selector === undefined || selector === null) {
    errs.push(required(SPEC.child('selector'), ''));
  } else {
    errs.push(...validateLabelSelector(selector, {}, SPEC.child('selector')));
    if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
      errs.push(invalid(SPEC.child('selector'), goLabelSelector(selector), `empty selector is invalid for ${kind}`));
    }
  }
  const match = selectorMatches(selector, template?.metadata?.labels);
  if (match === undefined) {
    errs.push(invalid(SPEC.child('selector'), goLabelSelector(selector), 'invalid label selector'));
    return false;
  }
  if (!match.empty && !match.ok) {
    errs.push(invalid(SPEC.child('template', 'metadata', 'labels'), goStringMap(template?.metadata?.labels), SELECTOR_MISMATCH));
  }
  return true;
}

/** Upstream's ValidatePodTemplateSpecForReplicaSet, after the selector check: a valid pod template that always restarts. */
function validateReplicatedTemplate(template: PodTemplateSpec | undefined, kind: string, path: FieldPath): FieldError[] {
  const errs = validatePodTemplateSpec(template, path);
  const restartPolicy = template?.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'Always') errs.push(notSupported(path.child('spec', 'restartPolicy'), restartPolicy, ['Always']));
  if (template?.spec?.activeDeadlineSeconds !== undefined && template.spec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(path.child('spec', 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

const intOrPercent = (value: IntOrString | undefined): number => {
  if (value === undefined || value === null) return 0;
  const percent = percentValue(value);
  if (percent !== undefined) return percent;
  return typeof value === 'number' ? value : Number.parseInt(value, 10) || 0;
};

// ---- Deployment

function validateDeploymentStrategy(strategy: DeploymentStrategy | undefined, path: FieldPath): FieldError[] {
  const s = strategy ?? {};
  const errs: FieldError[] = [];
  switch (s.type) {
    case 'Recreate':
      if (s.rollingUpdate !== undefined && s.rollingUpdate !== null) {
        errs.push(forbidden(path.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'"));
      }
      break;
    case 'RollingUpdate': {
      const rolling = s.rollingUpdate;
      if (rolling === undefined || rolling === null) {
        errs.push(required(path.child('rollingUpdate'), 'this should be defaulted and never be nil'));
        break;
      }
      const p = path.child('rollingUpdate');
      const maxUnavailable = rolling.maxUnavailable ?? 0;
      const maxSurge = rolling.maxSurge ?? 0;
      errs.push(...validatePositiveIntOrPercent(maxUnavailable, p.child('maxUnavailable')));
      errs.push(...validatePositiveIntOrPercent(maxSurge, p.child('maxSurge')));
      if (intOrPercent(maxUnavailable) === 0 && intOrPercent(maxSurge) === 0) {
        errs.push(invalid(p.child('maxUnavailable'), intOrStringValue(maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      errs.push(...isNotMoreThan100Percent(maxUnavailable, p.child('maxUnavailable')));
      break;
    }
    default: {
      const rolling = s.rollingUpdate === undefined || s.rollingUpdate === null ? '(*apps.RollingUpdateDeployment)(nil)' : '(*apps.RollingUpdateDeployment)(…)';
      errs.push(notSupported(path, new RawValue(`apps.DeploymentStrategy{Type:"${s.type ?? ''}", RollingUpdate:${rolling}}`), ['Recreate', 'RollingUpdate']));
    }
  }
  return errs;
}

function validateDeploymentSpec(d: Deployment): FieldError[] {
  const spec = d.spec;
  const errs: FieldError[] = [];
  errs.push(...validateNonnegativeField(spec?.replicas ?? 0, SPEC.child('replicas')));
  if (validateControllerSelector(spec?.selector, spec?.template, 'deployment', errs)) {
    errs.push(...validateReplicatedTemplate(spec?.template, 'ReplicaSet', SPEC.child('template')));
  }
  errs.push(...validateDeploymentStrategy(spec?.strategy, SPEC.child('strategy')));
  const minReady = spec?.minReadySeconds ?? 0;
  errs.push(...validateNonnegativeField(minReady, SPEC.child('minReadySeconds')));
  if (spec?.revisionHistoryLimit !== undefined && spec.revisionHistoryLimit !== null) {
    errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')));
  }
  const deadline = spec?.progressDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) {
    errs.push(...validateNonnegativeField(deadline, SPEC.child('progressDeadlineSeconds')));
    if (deadline <= minReady) errs.push(invalid(SPEC.child('progressDeadlineSeconds'), deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** Upstream's ValidateDeployment. */
export function validateDeployment(d: Deployment): FieldError[] {
  const errs = validateObjectMeta(meta(d), { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errs.push(...validateDeploymentSpec(d));
  return errs;
}

/** Upstream's ValidateDeploymentUpdate plus the strategy's rule that apps/v1 selectors are immutable. */
export function validateDeploymentUpdate(d: Deployment, old: Deployment): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(d), meta(old));
  errs.push(...validateDeploymentSpec(d));
  errs.push(...immutableSelector(d.spec?.selector, old.spec?.selector));
  return errs;
}

function immutableSelector(selector: LabelSelectorObject | undefined, old: LabelSelectorObject | undefined): FieldError[] {
  return semanticDeepEqual(selector, old) ? [] : [invalid(SPEC.child('selector'), goLabelSelector(selector), FIELD_IMMUTABLE_ERROR_MSG)];
}

function nonnegativeStatus(status: Record<string, unknown> | undefined, fields: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of fields) {
    const v = status?.[f];
    if (typeof v === 'number') errs.push(...validateNonnegativeField(v, path.child(f)));
  }
  return errs;
}

function collisionCountDecremented(next: number | undefined, old: number | undefined): FieldError[] {
  if (old === undefined || old === null) return [];
  if (next === undefined || next === null || next < old) return [invalid(STATUS.child('collisionCount'), next ?? 0, 'cannot be decremented')];
  return [];
}

const num = (v: number | undefined): number => v ?? 0;

/** Upstream's ValidateDeploymentStatusUpdate. */
export function validateDeploymentStatusUpdate(d: Deployment, old: Deployment): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(d), meta(old));
  const s: DeploymentStatus = d.status ?? {};
  errs.push(
    ...nonnegativeStatus(
      s as Record<string, unknown>,
      ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'],
      STATUS,
    ),
  );
  const msg = 'cannot be greater than status.replicas';
  if (num(s.updatedReplicas) > num(s.replicas)) errs.push(invalid(STATUS.child('updatedReplicas'), num(s.updatedReplicas), msg));
  if (num(s.readyReplicas) > num(s.replicas)) errs.push(invalid(STATUS.child('readyReplicas'), num(s.readyReplicas), msg));
  if (num(s.availableReplicas) > num(s.replicas)) errs.push(invalid(STATUS.child('availableReplicas'), num(s.availableReplicas), msg));
  if (num(s.availableReplicas) > num(s.readyReplicas)) {
    errs.push(invalid(STATUS.child('availableReplicas'), num(s.availableReplicas), 'cannot be greater than readyReplicas'));
  }
  errs.push(...collisionCountDecremented(s.collisionCount, old.status?.collisionCount));
  return errs;
}

// ---- ReplicaSet

function validateReplicaSetSpec(rs: ReplicaSet): FieldError[] {
  const spec = rs.spec;
  const errs: FieldError[] = [];
  errs.push(...validateNonnegativeField(spec?.replicas ?? 0, SPEC.child('replicas')));
  errs.push(...validateNonnegativeField(spec?.minReadySeconds ?? 0, SPEC.child('minReadySeconds')));
  // Upstream words an empty ReplicaSet selector as it does a Deployment's.
  if (validateControllerSelector(spec?.selector, spec?.template, 'deployment', errs)) {
    errs.push(...validateReplicatedTemplate(spec?.template, 'ReplicaSet', SPEC.child('template')));
  }
  return errs;
}

/** Upstream's ValidateReplicaSet. */
export function validateReplicaSet(rs: ReplicaSet): FieldError[] {
  const errs = validateObjectMeta(meta(rs), { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errs.push(...validateReplicaSetSpec(rs));
  return errs;
}

/** Upstream's ValidateReplicaSetUpdate plus immutable apps/v1 selectors. */
export function validateReplicaSetUpdate(rs: ReplicaSet, old: ReplicaSet): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(rs), meta(old));
  errs.push(...validateReplicaSetSpec(rs));
  errs.push(...immutableSelector(rs.spec?.selector, old.spec?.selector));
  return errs;
}

/** Upstream's ValidateReplicaSetStatusUpdate. */
export function validateReplicaSetStatusUpdate(rs: ReplicaSet, old: ReplicaSet): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(rs), meta(old));
  const s: ReplicaSetStatus = rs.status ?? { replicas: 0 };
  errs.push(...nonnegativeStatus(s as unknown as Record<string, unknown>, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'], STATUS));
  const msg = 'cannot be greater than status.replicas';
  if (num(s.fullyLabeledReplicas) > num(s.replicas)) errs.push(invalid(STATUS.child('fullyLabeledReplicas'), num(s.fullyLabeledReplicas), msg));
  if (num(s.readyReplicas) > num(s.replicas)) errs.push(invalid(STATUS.child('readyReplicas'), num(s.readyReplicas), msg));
  if (num(s.availableReplicas) > num(s.replicas)) errs.push(invalid(STATUS.child('availableReplicas'), num(s.availableReplicas), msg));
  if (num(s.availableReplicas) > num(s.readyReplicas)) {
    errs.push(invalid(STATUS.child('availableReplicas'), num(s.availableReplicas), 'cannot be greater than readyReplicas'));
  }
  return errs;
}

// ---- StatefulSet

const RETENTION_POLICIES = ['Retain', 'Delete'];

function validateStatefulSetSpec(sts: StatefulSet): FieldError[] {
  const spec = sts.spec;
  const errs: FieldError[] = [];
  const policy = spec?.podManagementPolicy ?? '';
  if (policy === '') errs.push(required(SPEC.child('podManagementPolicy'), ''));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(invalid(SPEC.child('podManagementPolicy'), policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy = spec?.updateStrategy ?? {};
  const strategyPath = SPEC.child('updateStrategy');
  switch (strategy.type ?? '') {
    case '':
      errs.push(required(strategyPath, ''));
      break;
    case 'OnDelete':
      if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null) {
        errs.push(invalid(strategyPath.child('rollingUpdate'), goStruct('apps.RollingUpdateStatefulSetStrategy', strategy.rollingUpdate), "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case 'RollingUpdate': {
      const rolling = strategy.rollingUpdate;
      if (rolling !== undefined && rolling !== null) {
        const p = strategyPath.child('rollingUpdate');
        errs.push(...validateNonnegativeField(rolling.partition ?? 0, p.child('partition')));
        if (rolling.maxUnavailable !== undefined && rolling.maxUnavailable !== null) {
          errs.push(...validatePositiveIntOrPercent(rolling.maxUnavailable, p.child('maxUnavailable')));
          if (intOrPercent(rolling.maxUnavailable) === 0) errs.push(invalid(p.child('maxUnavailable'), intOrStringValue(rolling.maxUnavailable), 'cannot be 0'));
          errs.push(...isNotMoreThan100Percent(rolling.maxUnavailable, p.child('maxUnavailable')));
        }
      }
      break;
    }
    default:
      errs.push(invalid(strategyPath, goStruct('apps.StatefulSetUpdateStrategy', strategy), "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec?.persistentVolumeClaimRetentionPolicy;
  if (retention !== undefined && retention !== null) {
    const p = SPEC.child('persistentVolumeClaimRetentionPolicy');
    for (const f of ['whenDeleted', 'whenScaled'] as const) {
      const v = retention[f] ?? '';
      if (!RETENTION_POLICIES.includes(v)) errs.push(notSupported(p.child(f), v, RETENTION_POLICIES));
    }
  }
  errs.push(...validateNonnegativeField(spec?.replicas ?? 0, SPEC.child('replicas')));
  errs.push(...validateNonnegativeField(spec?.minReadySeconds ?? 0, SPEC.child('minReadySeconds')));
  if (spec?.ordinals !== undefined && spec.ordinals !== null) {
    errs.push(...validateNonnegativeField(spec.ordinals.start ?? 0, SPEC.child('ordinals.start')));
  }
  const selector = spec?.selector;
  if (selector === undefined || selector === null) errs.push(required(SPEC.child('selector'), ''));
  else {
    errs.push(...validateLabelSelector(selector, {}, SPEC.child('selector')));
    if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
      errs.push(invalid(SPEC.child('selector'), goLabelSelector(selector), 'empty selector is invalid for statefulset'));
    }
  }
  const match = selectorMatches(selector, spec?.template?.metadata?.labels);
  const template = SPEC.child('template');
  if (match === undefined) errs.push(invalid(SPEC.child('selector'), goLabelSelector(selector), ''));
  else {
    if (!match.empty && !match.ok) errs.push(invalid(template.child('metadata', 'labels'), goStringMap(spec?.template?.metadata?.labels), SELECTOR_MISMATCH));
    // Upstream checks only the template's labels and annotations here, not its pod spec.
    errs.push(...validateLabels(spec?.template?.metadata?.labels, template.child('labels')));
    errs.push(...validateAnnotations(spec?.template?.metadata?.annotations, template.child('annotations')));
  }
  const restartPolicy = spec?.template?.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'Always') errs.push(notSupported(template.child('spec', 'restartPolicy'), restartPolicy, ['Always']));
  if (spec?.template?.spec?.activeDeadlineSeconds !== undefined && spec.template.spec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(template.child('spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errs;
}

/** Upstream's ValidateStatefulSetName: a DNS label, since pods take the name as their host name prefix. */
export const validateStatefulSetName = nameIsDNSLabel;

/** Upstream's ValidateStatefulSet. */
export function validateStatefulSet(sts: StatefulSet): FieldError[] {
  const errs = validateObjectMeta(meta(sts), { namespaced: true, nameValidator: validateStatefulSetName });
  errs.push(...validateStatefulSetSpec(sts));
  return errs;
}

const STATEFULSET_UPDATABLE =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/** Upstream's ValidateStatefulSetUpdate: only replicas, ordinals, template, update strategy, PVC retention and minReadySeconds change. */
export function validateStatefulSetUpdate(sts: StatefulSet, old: StatefulSet): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(sts), meta(old));
  errs.push(...validateStatefulSetSpec(sts));
  const strip = (s: StatefulSet['spec']): Record<string, unknown> => {
    const { replicas: _r, template: _t, updateStrategy: _u, minReadySeconds: _m, ordinals: _o, persistentVolumeClaimRetentionPolicy: _p, ...rest } = s ?? ({} as NonNullable<StatefulSet['spec']>);
    return rest;
  };
  if (!semanticDeepEqual(strip(sts.spec), strip(old.spec))) errs.push(forbidden(SPEC, STATEFULSET_UPDATABLE));
  return errs;
}

/** Upstream's ValidateStatefulSetStatusUpdate. */
export function validateStatefulSetStatusUpdate(sts: StatefulSet, old: StatefulSet): FieldError[] {
  const s: StatefulSetStatus = sts.status ?? { replicas: 0 };
  const errs = nonnegativeStatus(
    s as unknown as Record<string, unknown>,
    ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
    STATUS,
  );
  const msg = 'cannot be greater than status.replicas';
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'] as const) {
    if (num(s[f]) > num(s.replicas)) errs.push(invalid(STATUS.child(f), num(s[f]), msg));
  }
  if (num(s.availableReplicas) > num(s.readyReplicas)) {
    errs.push(invalid(STATUS.child('availableReplicas'), num(s.availableReplicas), 'cannot be greater than status.readyReplicas'));
  }
  errs.push(...validateObjectMetaUpdate(meta(sts), meta(old)));
  errs.push(...collisionCountDecremented(s.collisionCount, old.status?.collisionCount));
  return errs;
}

// ---- DaemonSet

function validateDaemonSetSpec(ds: DaemonSet): FieldError[] {
  const spec = ds.spec;
  const errs: FieldError[] = [];
  errs.push(...validateLabelSelector(spec?.selector, {}, SPEC.child('selector')));
  const match = selectorMatches(spec?.selector, spec?.template?.metadata?.labels);
  if (match !== undefined && !match.ok) {
    errs.push(invalid(SPEC.child('template', 'metadata', 'labels'), goStringMap(spec?.template?.metadata?.labels), SELECTOR_MISMATCH));
  }
  const selector = spec?.selector;
  if (selector !== undefined && selector !== null && Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
    errs.push(invalid(SPEC.child('selector'), goLabelSelector(selector), 'empty selector is invalid for daemonset'));
  }
  const template = SPEC.child('template');
  errs.push(...validatePodTemplateSpec(spec?.template, template));
  const restartPolicy = spec?.template?.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'Always') errs.push(notSupported(template.child('spec', 'restartPolicy'), restartPolicy, ['Always']));
  if (spec?.template?.spec?.activeDeadlineSeconds !== undefined && spec.template.spec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(template.child('spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  errs.push(...validateNonnegativeField(spec?.minReadySeconds ?? 0, SPEC.child('minReadySeconds')));
  const strategy = spec?.updateStrategy ?? {};
  const strategyPath = SPEC.child('updateStrategy');
  switch (strategy.type) {
    case 'OnDelete':
      break;
    case 'RollingUpdate': {
      const rolling = strategy.rollingUpdate;
      if (rolling === undefined || rolling === null) {
        errs.push(required(strategyPath.child('rollingUpdate'), ''));
        break;
      }
      const p = strategyPath.child('rollingUpdate');
      const maxUnavailable = rolling.maxUnavailable ?? 0;
      const maxSurge = rolling.maxSurge ?? 0;
      errs.push(...validatePositiveIntOrPercent(maxUnavailable, p.child('maxUnavailable')));
      errs.push(...validatePositiveIntOrPercent(maxSurge, p.child('maxSurge')));
      errs.push(...isNotMoreThan100Percent(maxUnavailable, p.child('maxUnavailable')));
      errs.push(...isNotMoreThan100Percent(maxSurge, p.child('maxSurge')));
      const hasUnavailable = intOrPercent(maxUnavailable) !== 0;
      const hasSurge = intOrPercent(maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(invalid(p.child('maxSurge'), intOrStringValue(maxSurge), 'may not be set when maxUnavailable is non-zero'));
      if (!hasUnavailable && !hasSurge) errs.push(required(p.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
      break;
    }
    default:
      errs.push(notSupported(strategyPath, goStruct('apps.DaemonSetUpdateStrategy', strategy), ['RollingUpdate', 'OnDelete']));
  }
  if (spec?.revisionHistoryLimit !== undefined && spec.revisionHistoryLimit !== null) {
    errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')));
  }
  return errs;
}

/** Upstream's ValidateDaemonSet. */
export function validateDaemonSet(ds: DaemonSet): FieldError[] {
  const errs = validateObjectMeta(meta(ds), { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errs.push(...validateDaemonSetSpec(ds));
  return errs;
}

/** Upstream's ValidateDaemonSetUpdate plus immutable apps/v1 selectors. */
export function validateDaemonSetUpdate(ds: DaemonSet, old: DaemonSet): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(ds), meta(old));
  errs.push(...validateDaemonSetSpec(ds));
  errs.push(...immutableSelector(ds.spec?.selector, old.spec?.selector));
  return errs;
}

/** Upstream's ValidateDaemonSetStatusUpdate. */
export function validateDaemonSetStatusUpdate(ds: DaemonSet, old: DaemonSet): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(ds), meta(old));
  const s = (ds.status ?? {}) as DaemonSetStatus;
  errs.push(
    ...nonnegativeStatus(
      s as unknown as Record<string, unknown>,
      ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount'],
      STATUS,
    ),
  );
  errs.push(...collisionCountDecremented(s.collisionCount, old.status?.collisionCount));
  return errs;
}

// ---- ControllerRevision

/** Upstream's ValidateControllerRevision. */
export function validateControllerRevision(revision: ControllerRevision): FieldError[] {
  const errs = validateObjectMeta(meta(revision), { namespaced: true, nameValidator: nameIsDNSSubdomain });
  if (revision.data === undefined || revision.data === null) errs.push(required(FieldPath.root('data'), 'data is mandatory'));
  errs.push(...validateNonnegativeField(revision.revision ?? 0, FieldPath.root('revision')));
  return errs;
}

/** Upstream's ValidateControllerRevisionUpdate: data never changes. */
export function validateControllerRevisionUpdate(revision: ControllerRevision, old: ControllerRevision): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(revision), meta(old));
  errs.push(...validateControllerRevision(revision));
  if (!semanticDeepEqual(revision.data, old.data)) errs.push(invalid(FieldPath.root('data'), goStruct('runtime.RawExtension', revision.data), FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

