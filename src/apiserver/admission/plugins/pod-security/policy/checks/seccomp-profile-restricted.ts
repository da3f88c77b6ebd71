/**
 * Restricted: a seccomp profile is required, RuntimeDefault or Localhost, set
 * on the pod or on every container (Windows pods exempt from v1.25).
 */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers, isWindowsPod } from '../pod-view.js';
import { containersPhrase } from '../text.js';
import { badSeccompDetail, explicitlyBadSeccomp, SECCOMP_BASELINE_ID } from './seccomp-profile-baseline.js';

export const seccompProfileRestricted_1_19: CheckPodFn = (_meta, spec) => {
  const { setters, values, podValid } = explicitlyBadSeccomp(spec);
  if (setters.length > 0) return forbiddenResult('seccompProfile', badSeccompDetail(setters, values));
  if (podValid) return ALLOWED;
  const unset = allContainers(spec)
    .filter((c) => c.securityContext?.seccompProfile === undefined || c.securityContext.seccompProfile === null)
    .map((c) => c.name);
  if (unset.length === 0) return ALLOWED;
  return forbiddenResult('seccompProfile', `pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
};

export const seccompProfileRestricted_1_25: CheckPodFn = (meta, spec) => (isWindowsPod(spec) ? ALLOWED : seccompProfileRestricted_1_19(meta, spec));

export const CHECK_SECCOMP_PROFILE_RESTRICTED: Check = {
  id: 'seccompProfile_restricted',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(1, 19), checkPod: seccompProfileRestricted_1_19, overrideCheckIDs: [SECCOMP_BASELINE_ID] },
    { minimumVersion: majorMinor(1, 25), checkPod: seccompProfileRestricted_1_25, overrideCheckIDs: [SECCOMP_BASELINE_ID] },
  ],
};
