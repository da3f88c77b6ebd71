/** Baseline: no hostPath volumes (restricted replaces this with restrictedVolumes). */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { joinQuote, pluralize } from '../text.js';

export const HOST_PATH_VOLUMES_ID = 'hostPathVolumes';

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

export const hostPathVolumes_1_0: CheckPodFn = (_meta, spec) => {
  const bad = (spec.volumes ?? []).filter((v) => isSet(v['hostPath'])).map((v) => v.name);
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`);
};

export const CHECK_HOST_PATH_VOLUMES: Check = {
  id: HOST_PATH_VOLUMES_ID,
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(1, 0), checkPod: hostPathVolumes_1_0 }],
};
