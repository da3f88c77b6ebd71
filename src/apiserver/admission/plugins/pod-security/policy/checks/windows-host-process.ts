/** Baseline: neither the pod nor a container may set windowsOptions.hostProcess=true. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase } from '../text.js';

export const windowsHostProcess_1_0: CheckPodFn = (_meta, spec) => {
  const bad = allContainers(spec).filter((c) => c.securityContext?.windowsOptions?.hostProcess === true).map((c) => c.name);
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbiddenResult('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`);
};

export const CHECK_WINDOWS_HOST_PROCESS: Check = {
  id: 'windowsHostProcess',
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(1, 0), checkPod: windowsHostProcess_1_0 }],
};
