/** Pod specs for the checks' unit tests: a pod with the given containers, each optionally with a security context. */
import type { CheckPodFn, CheckResult } from '../policy/check.js';
import type { ContainerView, PodMetaView, PodSpecView } from '../policy/pod-view.js';

export const container = (name: string, securityContext?: ContainerView['securityContext'], extra: Partial<ContainerView> = {}): ContainerView => ({
  name,
  image: 'busybox',
  ...(securityContext === undefined ? {} : { securityContext }),
  ...extra,
});

export const specWith = (containers: readonly ContainerView[], extra: Partial<PodSpecView> = {}): PodSpecView => ({ containers, ...extra });

/** Run a check on a spec (and optional annotations). */
export const run = (check: CheckPodFn, spec: PodSpecView, annotations?: Record<string, string>): CheckResult => {
  const meta: PodMetaView = annotations === undefined ? { name: 'p' } : { name: 'p', annotations };
  return check(meta, spec);
};

/** A restricted-compliant container security context. */
export const RESTRICTED_CONTEXT = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  runAsNonRoot: true,
  seccompProfile: { type: 'RuntimeDefault' },
} as const;
