/** Restricted (v1.23+): neither the pod nor a container may set runAsUser=0. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase } from '../text.js';

export const runAsUser_1_23: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) setters.push('pod');
  const bad = allContainers(spec).filter((c) => c.securityContext?.runAsUser === 0).map((c) => c.name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length === 0 ? ALLOWED : forbiddenResult('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`);
};

export const CHECK_RUN_AS_USER: Check = { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 23), checkPod: runAsUser_1_23 }] };
