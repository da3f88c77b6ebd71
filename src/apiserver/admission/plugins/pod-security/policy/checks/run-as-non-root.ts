/** Restricted: runAsNonRoot=true on the pod or on every container, and never false. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase } from '../text.js';

export const runAsNonRoot_1_0: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  const podValue = spec.securityContext?.runAsNonRoot;
  if (podValue === false) setters.push('pod');
  const podNonRoot = podValue === true;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of allContainers(spec)) {
    const value = c.securityContext?.runAsNonRoot;
    if (value === false) explicitlyBad.push(c.name);
    else if ((value === undefined || value === null) && !podNonRoot) implicitlyBad.push(c.name);
  }
  if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
  if (setters.length > 0) return forbiddenResult('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicitlyBad.length > 0) return forbiddenResult('runAsNonRoot != true', `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true`);
  return ALLOWED;
};

export const CHECK_RUN_AS_NON_ROOT: Check = { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: runAsNonRoot_1_0 }] };
