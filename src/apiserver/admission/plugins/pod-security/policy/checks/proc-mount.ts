/**
 * Baseline: the default /proc masks are required (procMount unset or
 * "Default"). Upstream 1.33 relaxes this for user-namespace pods only behind
 * the alpha UserNamespacesPodSecurityStandards gate, off by default: not relaxed here.
 */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase, joinQuote, sortedSet } from '../text.js';

export const procMount_1_0: CheckPodFn = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of allContainers(spec)) {
    const procMount = c.securityContext?.procMount;
    if (procMount === undefined || procMount === null || procMount === 'Default') continue;
    bad.push(c.name);
    types.push(procMount);
  }
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('procMount', `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
};

export const CHECK_PROC_MOUNT: Check = { id: 'procMount', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: procMount_1_0 }] };
