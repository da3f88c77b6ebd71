/** Baseline: containers may add only capabilities from the container runtime's default set. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase, joinQuote, sortedSet } from '../text.js';

export const CAPABILITIES_BASELINE_ID = 'capabilities_baseline';

const ALLOWED_1_0: ReadonlySet<string> = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD',
  'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

export const capabilitiesBaseline_1_0: CheckPodFn = (_meta, spec) => {
  const bad: string[] = [];
  const added: string[] = [];
  for (const c of allContainers(spec)) {
    const nonDefault = (c.securityContext?.capabilities?.add ?? []).filter((cap) => !ALLOWED_1_0.has(cap));
    if (nonDefault.length > 0) bad.push(c.name);
    added.push(...nonDefault);
  }
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`);
};

export const CHECK_CAPABILITIES_BASELINE: Check = {
  id: CAPABILITIES_BASELINE_ID,
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(1, 0), checkPod: capabilitiesBaseline_1_0 }],
};
