/**
 * Baseline: seccomp may not be Unconfined. Up to v1.18 the alpha annotations
 * are checked; from v1.19 the seccompProfile fields (pod and containers).
 */
import { goQuote } from '../../../../../../machinery/validation/go-text.js';
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase, joinQuote, pluralize, sortedSet } from '../text.js';

export const SECCOMP_BASELINE_ID = 'seccompProfile_baseline';

const POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

export const validSeccompType = (t: string | null | undefined): boolean => t === 'Localhost' || t === 'RuntimeDefault';
const validAnnotationValue = (v: string): boolean => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');

export const seccompProfileBaseline_1_0: CheckPodFn = (meta, spec) => {
  const annotations = meta.annotations ?? {};
  const forbidden: string[] = [];
  const consider = (key: string): void => {
    const value = annotations[key];
    if (value !== undefined && !validAnnotationValue(value)) forbidden.push(`${key}=${goQuote(value)}`);
  };
  consider(POD_ANNOTATION);
  for (const c of allContainers(spec)) consider(CONTAINER_ANNOTATION_PREFIX + c.name);
  const list = sortedSet(forbidden);
  if (list.length === 0) return ALLOWED;
  return forbiddenResult('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}`);
};

/** The pod and the containers that explicitly set a bad seccompProfile.type, and the bad values. */
export function explicitlyBadSeccomp(spec: Parameters<CheckPodFn>[1]): { setters: string[]; values: string[]; podValid: boolean } {
  const setters: string[] = [];
  const values: string[] = [];
  let podValid = false;
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile !== undefined && podProfile !== null) {
    if (validSeccompType(podProfile.type)) podValid = true;
    else {
      setters.push('pod');
      values.push(podProfile.type ?? '');
    }
  }
  const bad: string[] = [];
  for (const c of allContainers(spec)) {
    const profile = c.securityContext?.seccompProfile;
    if (profile !== undefined && profile !== null && !validSeccompType(profile.type)) {
      bad.push(c.name);
      values.push(profile.type ?? '');
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return { setters, values: sortedSet(values), podValid };
}

export const badSeccompDetail = (setters: readonly string[], values: readonly string[]): string =>
  `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}`;

export const seccompProfileBaseline_1_19: CheckPodFn = (_meta, spec) => {
  const { setters, values } = explicitlyBadSeccomp(spec);
  return setters.length === 0 ? ALLOWED : forbiddenResult('seccompProfile', badSeccompDetail(setters, values));
};

export const CHECK_SECCOMP_PROFILE_BASELINE: Check = {
  id: SECCOMP_BASELINE_ID,
  level: 'baseline',
  versions: [
    { minimumVersion: majorMinor(1, 0), checkPod: seccompProfileBaseline_1_0 },
    { minimumVersion: majorMinor(1, 19), checkPod: seccompProfileBaseline_1_19 },
  ],
};
