/**
 * What a Pod Security check is (upstream's policy.Check): an ID, the level it
 * belongs to, and one implementation per minimum version. A restricted check
 * may override baseline checks (restricted capabilities replace baseline's).
 */
import type { Level, Version } from '../api/level-version.js';
import type { PodMetaView, PodSpecView } from './pod-view.js';

export interface CheckResult {
  readonly allowed: boolean;
  /** Short, e.g. `privileged`; shown in namespace warnings. */
  readonly forbiddenReason?: string;
  /** Which fields and containers, e.g. `container "c" must not set securityContext.privileged=true`. */
  readonly forbiddenDetail?: string;
}

export type CheckPodFn = (meta: PodMetaView, spec: PodSpecView) => CheckResult;

export interface VersionedCheck {
  readonly minimumVersion: Version;
  readonly checkPod: CheckPodFn;
  readonly overrideCheckIDs?: readonly string[];
}

export interface Check {
  readonly id: string;
  readonly level: Exclude<Level, 'privileged'>;
  /** Strictly increasing minimum versions. */
  readonly versions: readonly VersionedCheck[];
}

export const ALLOWED: CheckResult = { allowed: true };

export const forbiddenResult = (reason: string, detail: string): CheckResult => ({ allowed: false, forbiddenReason: reason, forbiddenDetail: detail });
