/**
 * Validation of a pod spec (upstream's ValidatePodSpec): volumes, containers,
 * restart and DNS policies, node selector, names of the node, service
 * account and priority class, active deadline, host name and subdomain,
 * tolerations.
 */
import type { PodSpec, Toleration } from 'kubernetes-types/core/v1.js';
import { forbidden, invalid, notSupported, RawValue, required, type FieldError, type FieldPath } from '../../../machinery/field-errors.js';
import { goQuote } from '../../../machinery/validation/go-text.js';
import { validateLabelName, validateLabels } from '../../../machinery/validation/labels.js';
import { inclusiveRangeError } from '../../../machinery/validation/messages.js';
import { isDNS1123Subdomain, isValidLabelValue } from '../../../machinery/validation/names.js';
import { validateContainers, validateDNS1123Label, validateInitContainers } from './container-validation.js';
import { validateEphemeralContainers } from './ephemeral-containers.js';
import { validateVolumes } from './volume-validation.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];
const MAX_INT32 = 2147483647;

/** Upstream's ValidatePodSpec. */
export function validatePodSpec(spec: PodSpec | undefined, path: FieldPath): FieldError[] {
  const s = spec ?? ({ containers: [] } as PodSpec);
  const errs: FieldError[] = [];
  const volumes = validateVolumes(s.volumes, path.child('volumes'));
  errs.push(...volumes.errors);
  const ctx = { volumes: volumes.names, restartPolicy: s.restartPolicy };
  errs.push(...validateContainers(s.containers, ctx, path.child('containers')));
  errs.push(...validateInitContainers(s.initContainers, s.containers, ctx, path.child('initContainers')));
  errs.push(...validateEphemeralContainers(s.ephemeralContainers, s.containers, s.initContainers, ctx, path.child('ephemeralContainers')));
  errs.push(...validateRestartPolicy(s.restartPolicy, path.child('restartPolicy')));
  errs.push(...validateDNSPolicy(s.dnsPolicy, path.child('dnsPolicy')));
  errs.push(...validateLabels(s.nodeSelector, path.child('nodeSelector')));
  if (s.dnsPolicy === 'None' && s.dnsConfig === undefined) {
    errs.push(required(path.child('dnsConfig'), 'must provide `dnsConfig` when `dnsPolicy` is None'));
  }
  validateSubdomainField(errs, s.serviceAccountName, path, 'serviceAccountName');
  validateSubdomainField(errs, s.nodeName, path, 'nodeName');
  validateSubdomainField(errs, s.priorityClassName, path, 'priorityClassName');
  if (s.activeDeadlineSeconds !== undefined && s.activeDeadlineSeconds !== null) {
    const value = s.activeDeadlineSeconds;
    if (value < 1 || value > MAX_INT32) errs.push(invalid(path.child('activeDeadlineSeconds'), value, inclusiveRangeError(1, MAX_INT32)));
  }
  if ((s.hostname ?? '') !== '') errs.push(...validateDNS1123Label(s.hostname!, path.child('hostname')));
  if ((s.subdomain ?? '') !== '') errs.push(...validateDNS1123Label(s.subdomain!, path.child('subdomain')));
  if ((s.tolerations ?? []).length > 0) errs.push(...validateTolerations(s.tolerations, path.child('tolerations')));
  if (s.preemptionPolicy !== undefined && s.preemptionPolicy !== null && !PREEMPTION_POLICIES.includes(s.preemptionPolicy)) {
    errs.push(notSupported(path.child('preemptionPolicy'), s.preemptionPolicy, PREEMPTION_POLICIES));
  }
  (s.imagePullSecrets ?? []).forEach((secret, i) => {
    if ((secret.name ?? '') === '') errs.push(required(path.child('imagePullSecrets').index(i).child('name'), ''));
  });
  (s.readinessGates ?? []).forEach((gate, i) => {
    errs.push(...validateLabelName(gate.conditionType, path.child('readinessGates').index(i).child('conditionType')));
  });
  return errs;
}

/** A name field that, when set, must be a subdomain. */
function validateSubdomainField(errs: FieldError[], value: string | null | undefined, path: FieldPath, field: string): void {
  if (value === undefined || value === null || value === '') return;
  for (const m of isDNS1123Subdomain(value)) errs.push(invalid(path.child(field), value, m));
}

function validateRestartPolicy(policy: string | undefined, path: FieldPath): FieldError[] {
  if (policy === undefined || policy === '') return [required(path, '')];
  return RESTART_POLICIES.includes(policy) ? [] : [notSupported(path, policy, RESTART_POLICIES)];
}

function validateDNSPolicy(policy: string | undefined, path: FieldPath): FieldError[] {
  if (policy === undefined || policy === '') return [required(path, '')];
  return DNS_POLICIES.includes(policy) ? [] : [notSupported(path, policy, DNS_POLICIES)];
}

/** Upstream's ValidateTolerations. */
export function validateTolerations(tolerations: readonly Toleration[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (tolerations ?? []).forEach((t, i) => {
    const p = path.index(i);
    const key = t.key ?? '';
    const operator = t.operator ?? '';
    const effect = t.effect ?? '';
    if (key !== '') errs.push(...validateLabelName(key, p.child('key')));
    if (key === '' && operator !== 'Exists') {
      errs.push(invalid(p.child('operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute') {
      errs.push(invalid(p.child('effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(t.value ?? '');
        if (msgs.length > 0) errs.push(invalid(p.child('operator'), t.value ?? '', msgs.join(';')));
        break;
      }
      case 'Exists':
        if ((t.value ?? '') !== '') errs.push(invalid(p.child('operator'), goToleration(t), "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(notSupported(p.child('operator'), operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !TAINT_EFFECTS.includes(effect)) errs.push(notSupported(p.child('effect'), effect, TAINT_EFFECTS));
  });
  return errs;
}

/** A toleration as `%#v` prints it (a set tolerationSeconds is a pointer, printed as its address upstream). */
function goToleration(t: Toleration): RawValue {
  const seconds = t.tolerationSeconds === undefined || t.tolerationSeconds === null ? '(*int64)(nil)' : `(*int64)(${t.tolerationSeconds})`;
  return new RawValue(
    `core.Toleration{Key:${goQuote(t.key ?? '')}, Operator:${goQuote(t.operator ?? '')}, Value:${goQuote(t.value ?? '')}, Effect:${goQuote(t.effect ?? '')}, TolerationSeconds:${seconds}}`,
  );
}

/** Upstream's validateOnlyAddedTolerations: existing tolerations stay (only their tolerationSeconds may change). */
export function validateOnlyAddedTolerations(
  next: readonly Toleration[] | undefined,
  old: readonly Toleration[] | undefined,
  path: FieldPath,
): FieldError[] {
  const same = (a: Toleration, b: Toleration): boolean =>
    (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '');
  for (const o of old ?? []) {
    if (!(next ?? []).some((n) => same(o, n))) return [forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, path);
}
