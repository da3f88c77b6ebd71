/**
 * Validation of core/v1 workload kinds with upstream's messages
 * (pkg/apis/core/validation): pods on create, update and status update, pod
 * templates (the object and the template inside workloads), and pod
 * bindings. Pure: returns field errors, never throws, never mutates.
 */
import type { Binding, Container, Pod, PodSpec, PodStatus, PodTemplate, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { FieldPath, forbidden, invalid, notSupported, duplicate, required, type FieldError } from '../../../machinery/field-errors.js';
import { semanticDeepEqual } from '../../../machinery/validation/immutable.js';
import { isValidIPForLegacyField } from '../../../machinery/validation/ip-addresses.js';
import { validateAnnotations, validateLabels } from '../../../machinery/validation/labels.js';
import { inclusiveRangeError } from '../../../machinery/validation/messages.js';
import { isDNS1123Subdomain, isQualifiedName, validatePodName } from '../../../machinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMeta } from '../../../machinery/validation/object-meta.js';
import { staticPodEphemeralError, validateEphemeralContainersChange } from './ephemeral-containers.js';
import { validateOnlyAddedTolerations, validatePodSpec } from './pod-spec-validation.js';
import { deepCopy } from '../../../machinery/meta.js';

export { validatePodSpec, validateTolerations } from './pod-spec-validation.js';

const METADATA = FieldPath.root('metadata');
const SPEC = FieldPath.root('spec');
const MAX_INT32 = 2147483647;

const meta = (o: { metadata?: unknown }): ObjectMeta => (o.metadata ?? {}) as ObjectMeta;

/** Upstream's ValidatePodCreate. */
export function validatePod(pod: Pod): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const spec = pod.spec;
  if ((spec?.ephemeralContainers ?? []).length > 0) errs.push(forbidden(SPEC.child('ephemeralContainers'), 'cannot be set on create'));
  if ((spec?.nodeName ?? '') !== '' && (spec?.schedulingGates ?? []).length > 0) {
    errs.push(forbidden(SPEC.child('nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  }
  errs.push(...validatePodIPs(pod.status));
  return errs;
}

function validatePodMetadataAndSpec(pod: Pod): FieldError[] {
  const errs = validateObjectMeta(meta(pod), { namespaced: true, nameValidator: validatePodName });
  errs.push(...validatePodSpec(pod.spec, SPEC));
  return errs;
}

/** Upstream's ValidatePodEphemeralContainersUpdate (pods/ephemeralcontainers): the new pod valid, its old ephemeral containers unchanged. */
export function validatePodEphemeralContainersUpdate(pod: Pod, old: Pod): FieldError[] {
  const staticPod = staticPodEphemeralError(old);
  if (staticPod !== undefined) return [staticPod];
  const errs = validateObjectMetaUpdate(meta(pod), meta(old));
  errs.push(...validatePodMetadataAndSpec(pod));
  errs.push(...validateEphemeralContainersChange(pod, old));
  return errs;
}

const UPDATABLE_POD_FIELDS =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,' +
  '`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Upstream's ValidatePodUpdate: the spec is immutable but for images, the active deadline, added tolerations and gates removed. */
export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(pod), meta(old));
  errs.push(...validatePodMetadataAndSpec(pod));
  const spec = pod.spec ?? ({ containers: [] } as PodSpec);
  const oldSpec = old.spec ?? ({ containers: [] } as PodSpec);

  for (const [field, next, prev] of [
    ['containers', spec.containers, oldSpec.containers],
    ['initContainers', spec.initContainers, oldSpec.initContainers],
  ] as const) {
    const { errors, stop } = validateContainerUpdates(next ?? [], prev ?? [], SPEC.child(field));
    errs.push(...errors);
    if (stop) return errs;
  }

  const deadline = spec.activeDeadlineSeconds;
  const oldDeadline = oldSpec.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) {
    if (deadline < 0 || deadline > MAX_INT32) {
      errs.push(invalid(SPEC.child('activeDeadlineSeconds'), deadline, inclusiveRangeError(0, MAX_INT32)));
      return errs;
    }
    if (oldDeadline !== undefined && oldDeadline !== null && oldDeadline < deadline) {
      errs.push(invalid(SPEC.child('activeDeadlineSeconds'), deadline, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (oldDeadline !== undefined && oldDeadline !== null) {
    errs.push(invalid(SPEC.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
  }

  errs.push(...validateOnlyAddedTolerations(spec.tolerations, oldSpec.tolerations, SPEC.child('tolerations')));
  const oldGates = (oldSpec.schedulingGates ?? []).map((g) => g.name);
  const newGates = (spec.schedulingGates ?? []).map((g) => g.name);
  if (newGates.some((g) => !oldGates.includes(g))) errs.push(forbidden(SPEC.child('schedulingGates'), 'only deletion is allowed, but found new scheduling gate'));

  if (semanticDeepEqual(spec, oldSpec)) return errs;
  // What may change is put back as it was; anything else that differs is forbidden.
  const munged = deepCopy(spec) as PodSpec & Record<string, unknown>;
  munged.containers = (munged.containers ?? []).map((c, i) => ({ ...c, image: oldSpec.containers?.[i]?.image ?? '' }));
  if (munged.initContainers !== undefined) {
    munged.initContainers = munged.initContainers.map((c, i) => ({ ...c, image: oldSpec.initContainers?.[i]?.image ?? '' }));
  }
  setOrDelete(munged, 'activeDeadlineSeconds', oldSpec.activeDeadlineSeconds);
  setOrDelete(munged, 'schedulingGates', oldSpec.schedulingGates);
  setOrDelete(munged, 'tolerations', oldSpec.tolerations);
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (oldGrace !== undefined && oldGrace !== null && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (!semanticDeepEqual(munged, oldSpec)) {
    errs.push(forbidden(SPEC, `${UPDATABLE_POD_FIELDS}\n${specDiff(oldSpec as unknown as Record<string, unknown>, munged)}`));
  }
  return errs;
}

function setOrDelete(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = deepCopy(value);
}

/** Upstream's ValidateContainerUpdates: same number of containers, each with an image. */
function validateContainerUpdates(next: readonly Container[], old: readonly Container[], path: FieldPath): { errors: FieldError[]; stop: boolean } {
  if (next.length !== old.length) return { errors: [forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errors: FieldError[] = [];
  next.forEach((c, i) => {
    const image = c.image ?? '';
    if (image === '') errors.push(required(path.index(i).child('image'), ''));
    if (image.trim().length !== image.length) errors.push(invalid(path.index(i).child('image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errors, stop: false };
}

const GO_FIELD_NAMES: Readonly<Record<string, string>> = {
  dnsPolicy: 'DNSPolicy',
  dnsConfig: 'DNSConfig',
  hostIPC: 'HostIPC',
  hostPID: 'HostPID',
  serviceAccount: 'DeprecatedServiceAccount',
  os: 'OS',
};

/**
 * A short rendering of how two pod specs differ, in the shape of the
 * cmp.Diff upstream appends to its message (`- old`, `+ new` per field).
 */
function specDiff(old: Record<string, unknown>, next: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])];
  const lines = ['  core.PodSpec{'];
  let same = 0;
  for (const key of keys) {
    if (semanticDeepEqual(old[key], next[key])) {
      same++;
      continue;
    }
    const name = GO_FIELD_NAMES[key] ?? key.charAt(0).toUpperCase() + key.slice(1);
    if (old[key] !== undefined) lines.push(`- \t${name}: ${JSON.stringify(old[key])},`);
    if (next[key] !== undefined) lines.push(`+ \t${name}: ${JSON.stringify(next[key])},`);
  }
  if (same > 0) lines.splice(1, 0, `  \t... // ${same} identical fields`);
  lines.push('  }');
  return lines.join('\n');
}

/** Upstream's ValidatePodStatusUpdate. */
export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(pod), meta(old));
  // Upstream names these conditions under metadata (a long-standing quirk kept for its messages).
  (pod.status?.conditions ?? []).forEach((c, i) => {
    if (c.type === 'PodScheduled' || c.type === 'Ready' || c.type === 'Initialized') return;
    errs.push(...isQualifiedName(c.type).map((m) => invalid(METADATA.child('conditions').index(i).child('Type'), c.type, m)));
  });
  const status = FieldPath.root('status');
  if ((pod.spec?.nodeName ?? '') !== (old.spec?.nodeName ?? '')) errs.push(forbidden(status.child('nodeName'), 'may not be changed directly'));
  const nominated = pod.status?.nominatedNodeName ?? '';
  if (nominated !== (old.status?.nominatedNodeName ?? '') && nominated !== '') {
    errs.push(...isDNS1123Subdomain(nominated).map((m) => invalid(status.child('nominatedNodeName'), nominated, m)));
  }
  const restartPolicy = old.spec?.restartPolicy ?? '';
  errs.push(...validateContainerStateTransition(pod.status?.containerStatuses, old.status?.containerStatuses, status.child('containerStatuses'), restartPolicy));
  errs.push(...validateContainerStateTransition(pod.status?.initContainerStatuses, old.status?.initContainerStatuses, status.child('initContainerStatuses'), restartPolicy));
  // Ephemeral containers never restart.
  errs.push(...validateContainerStateTransition(pod.status?.ephemeralContainerStatuses, old.status?.ephemeralContainerStatuses, status.child('ephemeralContainerStatuses'), 'Never'));
  errs.push(...validatePodIPs(pod.status));
  errs.push(...validateHostIPs(pod));
  return errs;
}

type ContainerStatuses = PodStatus['containerStatuses'];

/** Upstream's ValidateContainerStateTransition: a terminated container that will not restart stays terminated. */
function validateContainerStateTransition(next: ContainerStatuses, old: ContainerStatuses, path: FieldPath, restartPolicy: string): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  (old ?? []).forEach((o, i) => {
    const terminated = o.state?.terminated;
    if (terminated === undefined || terminated === null) return;
    if (terminated.exitCode !== 0 && restartPolicy === 'OnFailure') return;
    for (const n of next ?? []) {
      if (n.name === o.name && (n.state?.terminated === undefined || n.state.terminated === null)) {
        errs.push(forbidden(path.index(i).child('state'), 'may not be transitioned to non-terminated state'));
      }
    }
  });
  return errs;
}

function validatePodIPs(status: PodStatus | undefined): FieldError[] {
  const path = FieldPath.root('status').child('podIPs');
  const ips = status?.podIPs ?? [];
  const errs: FieldError[] = [];
  ips.forEach((ip, i) => errs.push(...isValidIPForLegacyField(path.index(i), ip.ip ?? '', { strict: false })));
  if (ips.length > 1) {
    const families = ips.map((ip) => ((ip.ip ?? '').includes(':') ? 6 : 4));
    if (ips.length > 2 || families[0] === families[1]) errs.push(invalid(path, ips, 'may specify no more than one IP for each IP family'));
    const seen = new Set<string>();
    ips.forEach((ip, i) => {
      if (seen.has(ip.ip ?? '')) errs.push(duplicate(path.index(i), ip));
      seen.add(ip.ip ?? '');
    });
  }
  return errs;
}

function validateHostIPs(pod: Pod): FieldError[] {
  const path = FieldPath.root('status').child('hostIPs');
  const status = pod.status;
  const ips = status?.hostIPs ?? [];
  const errs: FieldError[] = [];
  if ((status?.hostIP ?? '') === '' && ips.length === 0) return [];
  if (ips.length > 0 && ips[0]?.ip !== status?.hostIP) {
    errs.push(invalid(path.index(0).child('ip'), ips[0]?.ip ?? '', 'must be equal to `hostIP`'));
  }
  ips.forEach((ip, i) => errs.push(...isValidIPForLegacyField(path.index(i), ip.ip ?? '', { strict: false })));
  return errs;
}

/** Upstream's ValidatePodTemplateSpec: the template inside a workload (note: label paths omit `metadata`, as upstream's do). */
export function validatePodTemplateSpec(template: PodTemplateSpec | undefined, path: FieldPath): FieldError[] {
  const t = template ?? {};
  const errs = validateLabels(t.metadata?.labels, path.child('labels'));
  errs.push(...validateAnnotations(t.metadata?.annotations, path.child('annotations')));
  errs.push(...validatePodSpec(t.spec, path.child('spec')));
  if ((t.spec?.ephemeralContainers ?? []).length > 0) {
    errs.push(forbidden(path.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

/** Upstream's ValidatePodTemplate (the PodTemplate object). */
export function validatePodTemplate(template: PodTemplate): FieldError[] {
  const errs = validateObjectMeta(meta(template), { namespaced: true, nameValidator: validatePodName });
  errs.push(...validatePodTemplateSpec(template.template, FieldPath.root('template')));
  return errs;
}

/** Upstream's ValidatePodTemplateUpdate. */
export function validatePodTemplateUpdate(template: PodTemplate, old: PodTemplate): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(template), meta(old));
  errs.push(...validatePodTemplateSpec(template.template, FieldPath.root('template')));
  return errs;
}

/** Upstream's ValidatePodBinding: a target node by name. */
export function validatePodBinding(binding: Binding): FieldError[] {
  const errs: FieldError[] = [];
  const kind = binding.target?.kind ?? '';
  if (kind !== '' && kind !== 'Node') errs.push(notSupported(FieldPath.root('target').child('kind'), kind, ['Node', '<empty>']));
  if ((binding.target?.name ?? '') === '') errs.push(required(FieldPath.root('target').child('name'), ''));
  return errs;
}

