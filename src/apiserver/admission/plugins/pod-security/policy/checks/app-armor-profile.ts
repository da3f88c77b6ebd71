/**
 * Baseline: AppArmor may not be disabled or overridden: profile types
 * RuntimeDefault or Localhost only, and the deprecated beta annotations only
 * `runtime/default` or `localhost/*`.
 */
import { goQuote } from '../../../../../../machinery/validation/go-text.js';
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import { allContainers } from '../pod-view.js';
import { containersPhrase, joinQuote, pluralize, sortedSet } from '../text.js';

const ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

const allowedAnnotationValue = (v: string): boolean => v === '' || v === 'runtime/default' || v.startsWith('localhost/');
const allowedType = (t: string): boolean => t === 'RuntimeDefault' || t === 'Localhost';

export const appArmorProfile_1_0: CheckPodFn = (meta, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podProfile = spec.securityContext?.appArmorProfile;
  if (podProfile !== undefined && podProfile !== null && !allowedType(podProfile.type ?? '')) {
    setters.push('pod');
    badValues.push(podProfile.type ?? '');
  }
  const badContainers: string[] = [];
  for (const c of allContainers(spec)) {
    const profile = c.securityContext?.appArmorProfile;
    if (profile !== undefined && profile !== null && !allowedType(profile.type ?? '')) {
      badContainers.push(c.name);
      badValues.push(profile.type ?? '');
    }
  }
  if (badContainers.length > 0) setters.push(containersPhrase(badContainers));
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, v]) => k.startsWith(ANNOTATION_PREFIX) && !allowedAnnotationValue(v))
    .map(([k, v]) => `${k}=${goQuote(v)}`)
    .sort();
  const values = [...sortedSet(badValues), ...annotations];
  if (annotations.length > 0) setters.push(pluralize('annotation', 'annotations', annotations.length));
  if (setters.length === 0) return ALLOWED;
  return forbiddenResult(
    pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  );
};

export const CHECK_APP_ARMOR_PROFILE: Check = { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: appArmorProfile_1_0 }] };
