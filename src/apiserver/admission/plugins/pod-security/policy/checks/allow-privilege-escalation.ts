/** Restricted: every container must set allowPrivilegeEscalation=false (Windows pods exempt from v1.25). */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers, isWindowsPod } from '../pod-view.js';
import { containersPhrase } from '../text.js';

export const allowPrivilegeEscalation_1_8: CheckPodFn = (_meta, spec) => {
  const bad = allContainers(spec).filter((c) => c.securityContext?.allowPrivilegeEscalation !== false).map((c) => c.name);
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`);
};

export const allowPrivilegeEscalation_1_25: CheckPodFn = (meta, spec) => (isWindowsPod(spec) ? ALLOWED : allowPrivilegeEscalation_1_8(meta, spec));

export const CHECK_ALLOW_PRIVILEGE_ESCALATION: Check = {
  id: 'allowPrivilegeEscalation',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(1, 8), checkPod: allowPrivilegeEscalation_1_8 },
    { minimumVersion: majorMinor(1, 25), checkPod: allowPrivilegeEscalation_1_25 },
  ],
};
