/** Baseline: SELinux type only from the container types; user and role never set. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers, type SELinuxOptionsView } from '../pod-view.js';
import { containersPhrase, joinQuote, pluralize, sortedSet } from '../text.js';

const TYPES_1_0: ReadonlySet<string> = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const TYPES_1_31: ReadonlySet<string> = new Set([...TYPES_1_0, 'container_engine_t']);

function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckPodFn {
  return (_meta, spec) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (o: SELinuxOptionsView): boolean => {
      let ok = true;
      const type = o.type ?? '';
      if (!allowedTypes.has(type)) {
        ok = false;
        badTypes.push(type);
      }
      if ((o.user ?? '') !== '') {
        ok = false;
        setUser = true;
      }
      if ((o.role ?? '') !== '') {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const setters: string[] = [];
    const podOptions = spec.securityContext?.seLinuxOptions;
    if (podOptions !== undefined && podOptions !== null && !valid(podOptions)) setters.push('pod');
    const bad: string[] = [];
    for (const c of allContainers(spec)) {
      const o = c.securityContext?.seLinuxOptions;
      if (o !== undefined && o !== null && !valid(o)) bad.push(c.name);
    }
    if (bad.length > 0) setters.push(containersPhrase(bad));
    if (setters.length === 0) return ALLOWED;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return forbiddenResult('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
  };
}

export const seLinuxOptions_1_0 = seLinuxOptions(TYPES_1_0);
export const seLinuxOptions_1_31 = seLinuxOptions(TYPES_1_31);

export const CHECK_SE_LINUX_OPTIONS: Check = {
  id: 'seLinuxOptions',
  level: 'baseline',
  versions: [
    { minimumVersion: majorMinor(1, 0), checkPod: seLinuxOptions_1_0 },
    { minimumVersion: majorMinor(1, 31), checkPod: seLinuxOptions_1_31 },
  ],
};
