/**
 * Ephemeral containers (what `kubectl debug` adds to a running pod), validated
 * as upstream's pkg/apis/core/validation does: each is a container with a
 * name unique among all the pod's containers, whose targetContainerName (the
 * container whose processes it shares) names a regular or init container,
 * and which sets none of the fields a workload relies on — ports, probes,
 * lifecycle, resources, restart policies, volume subPaths: an ephemeral
 * container is for looking around, never part of the pod's service. They come
 * only through the pods/ephemeralcontainers subresource, which may add them
 * but never change or remove one.
 */
import type { Container, EphemeralContainer, Pod } from 'kubernetes-types/core/v1.js';
import { semanticDeepEqual } from '../../../machinery/validation/immutable.js';
import { duplicate, FieldPath, forbidden, notFound, type FieldError } from '../../../machinery/field-errors.js';
import { validateContainerCommon, type ContainerContext } from './container-validation.js';

const NOT_FOR_EPHEMERAL = 'cannot be set for an Ephemeral Container';

/** Fields of a container an ephemeral container may not set (upstream's allow list, inverted). */
const FORBIDDEN_FIELDS = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'] as const;

/** A Go zero value: absent, null, empty string, empty list or empty object. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

/** Upstream's validateEphemeralContainers, at `path` (spec.ephemeralContainers). */
export function validateEphemeralContainers(
  ephemeral: readonly EphemeralContainer[] | undefined,
  containers: readonly Container[] | undefined,
  initContainers: readonly Container[] | undefined,
  ctx: ContainerContext,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  if (ephemeral === undefined || ephemeral.length === 0) return errs;
  const others = new Set([...(containers ?? []), ...(initContainers ?? [])].map((c) => c.name));
  const all = new Set(others);
  ephemeral.forEach((ec, i) => {
    const at = path.index(i);
    errs.push(...validateContainerCommon(ec as Container, ctx, at));
    if (all.has(ec.name)) errs.push(duplicate(at.child('name'), ec.name));
    else all.add(ec.name);
    const target = ec.targetContainerName ?? '';
    if (target !== '' && !others.has(target)) errs.push(notFound(at.child('targetContainerName'), target));
    for (const field of FORBIDDEN_FIELDS) {
      if (!isZero((ec as unknown as Record<string, unknown>)[field])) errs.push(forbidden(at.child(field), NOT_FOR_EPHEMERAL));
    }
    (ec.volumeMounts ?? []).forEach((mount, m) => {
      if ((mount.subPath ?? '') !== '') errs.push(forbidden(at.child('volumeMounts').index(m).child('subPath'), NOT_FOR_EPHEMERAL));
      if ((mount.subPathExpr ?? '') !== '') errs.push(forbidden(at.child('volumeMounts').index(m).child('subPathExpr'), NOT_FOR_EPHEMERAL));
    });
  });
  return errs;
}

/** A static pod's mirror takes no ephemeral container (upstream answers with this one error). */
export function staticPodEphemeralError(old: Pod): FieldError | undefined {
  if (old.metadata?.annotations?.['kubernetes.io/config.mirror'] === undefined) return undefined;
  return forbidden(FieldPath.root(''), 'static pods do not support ephemeral containers');
}

/** The ephemeral containers a pod had stay exactly as they were: added to, never changed or removed. */
export function validateEphemeralContainersChange(pod: Pod, old: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root('spec').child('ephemeralContainers');
  const next = new Map((pod.spec?.ephemeralContainers ?? []).map((ec) => [ec.name, ec]));
  for (const before of old.spec?.ephemeralContainers ?? []) {
    const after = next.get(before.name);
    if (after === undefined) errs.push(forbidden(path, `existing ephemeral containers ${JSON.stringify(before.name)} may not be removed\n`));
    else if (!semanticDeepEqual(before, after)) errs.push(forbidden(path, `existing ephemeral containers ${JSON.stringify(before.name)} may not be changed\n`));
  }
  return errs;
}
