/** Baseline: containers must not be privileged (securityContext.privileged=true). */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase } from '../text.js';

export const privileged_1_0: CheckPodFn = (_meta, spec) => {
  const bad = allContainers(spec).filter((c) => c.securityContext?.privileged === true).map((c) => c.name);
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`);
};

export const CHECK_PRIVILEGED: Check = { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: privileged_1_0 }] };
