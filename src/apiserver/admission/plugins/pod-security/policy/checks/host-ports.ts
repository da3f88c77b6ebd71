/** Baseline: no container may use a hostPort. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase, pluralize, sortedSet } from '../text.js';

export const hostPorts_1_0: CheckPodFn = (_meta, spec) => {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of allContainers(spec)) {
    const used = (c.ports ?? []).map((p) => p.hostPort ?? 0).filter((p) => p !== 0);
    if (used.length > 0) bad.push(c.name);
    ports.push(...used.map(String));
  }
  if (bad.length === 0) return ALLOWED;
  const distinct = sortedSet(ports);
  return forbiddenResult(
    'hostPort',
    `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`,
  );
};

export const CHECK_HOST_PORTS: Check = { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: hostPorts_1_0 }] };
