/** Restricted: containers must drop ALL and may add only NET_BIND_SERVICE (Windows pods exempt from v1.25). */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers, isWindowsPod } from '../pod-view.js';
import { containersPhrase, joinQuote, sortedSet } from '../text.js';
import { CAPABILITIES_BASELINE_ID } from './capabilities-baseline.js';

export const capabilitiesRestricted_1_22: CheckPodFn = (_meta, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden: string[] = [];
  for (const c of allContainers(spec)) {
    const caps = c.securityContext?.capabilities;
    if (caps === undefined || caps === null) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!(caps.drop ?? []).includes('ALL')) missingDropAll.push(c.name);
    const bad = (caps.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (bad.length > 0) addingForbidden.push(c.name);
    forbidden.push(...bad);
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  return details.length === 0 ? ALLOWED : forbiddenResult('unrestricted capabilities', details.join('; '));
};

export const capabilitiesRestricted_1_25: CheckPodFn = (meta, spec) => (isWindowsPod(spec) ? ALLOWED : capabilitiesRestricted_1_22(meta, spec));

export const CHECK_CAPABILITIES_RESTRICTED: Check = {
  id: 'capabilities_restricted',
  level: 'restricted',
  versions: [
    { minimumVersion: majorMinor(1, 22), checkPod: capabilitiesRestricted_1_22, overrideCheckIDs: [CAPABILITIES_BASELINE_ID] },
    { minimumVersion: majorMinor(1, 25), checkPod: capabilitiesRestricted_1_25, overrideCheckIDs: [CAPABILITIES_BASELINE_ID] },
  ],
};
