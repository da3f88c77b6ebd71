/**
 * The check registry (upstream's policy.NewEvaluator): for each level and
 * each version v1.0 … newest, the checks in force, precomputed once. A check
 * runs its implementation with the newest minimum version ≤ the asked
 * version; restricted includes every baseline check a restricted check does
 * not override; checks run baseline first, then restricted, each group in
 * order of ID, so that messages list reasons in upstream's order. `latest`
 * and versions newer than the newest check mean the newest.
 */
import { majorMinor, olderThan, sameVersion, type LevelVersion, type Version } from '../api/level-version.js';
import type { Check, CheckPodFn, CheckResult, VersionedCheck } from './check.js';
import type { PodMetaView, PodSpecView } from './pod-view.js';

export interface Evaluator {
  evaluatePod(lv: LevelVersion, meta: PodMetaView, spec: PodSpecView): CheckResult[];
}

export interface AggregateCheckResult {
  readonly allowed: boolean;
  readonly forbiddenReasons: readonly string[];
  readonly forbiddenDetails: readonly string[];
}

export const UNKNOWN_FORBIDDEN_REASON = 'unknown forbidden reason';

export function aggregateCheckResults(results: readonly CheckResult[]): AggregateCheckResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.forbiddenReason === undefined || r.forbiddenReason === '' ? UNKNOWN_FORBIDDEN_REASON : r.forbiddenReason);
    details.push(r.forbiddenDetail ?? '');
  }
  return { allowed: reasons.length === 0, forbiddenReasons: reasons, forbiddenDetails: details };
}

/** `reason1, reason2`: what namespace warnings show per pod. */
export const forbiddenReason = (a: AggregateCheckResult): string => a.forbiddenReasons.join(', ');

/** `reason1 (detail1), reason2 (detail2)`: what refusals and warnings show. */
export const forbiddenDetail = (a: AggregateCheckResult): string =>
  a.forbiddenReasons.map((reason, i) => (a.forbiddenDetails[i] === '' ? reason : `${reason} (${a.forbiddenDetails[i]})`)).join(', ');

const key = (v: Version): string => `${v.major}.${v.minor}`;
const nextMinor = (v: Version): Version => majorMinor(v.major, v.minor + 1);

/** Throws on a malformed check list (duplicate IDs, versions not strictly increasing, bad overrides), as upstream. */
export function validateChecks(checks: readonly Check[]): void {
  const levels = new Map<string, string>();
  for (const check of checks) {
    if (levels.has(check.id)) throw new Error(`multiple checks registered for ID ${check.id}`);
    levels.set(check.id, check.level);
    if (check.versions.length === 0) throw new Error(`check ${check.id}: empty`);
    let previous: Version | undefined;
    for (const v of check.versions) {
      if (v.minimumVersion.latest) throw new Error(`check ${check.id}: version cannot be 'latest'`);
      if (previous !== undefined && !olderThan(previous, v.minimumVersion)) throw new Error(`check ${check.id}: versions must be strictly increasing`);
      previous = v.minimumVersion;
    }
  }
  for (const check of checks) {
    for (const v of check.versions) {
      if ((v.overrideCheckIDs ?? []).length === 0) continue;
      if (check.level !== 'restricted') throw new Error(`check ${check.id}: only restricted checks may set overrides`);
      for (const id of v.overrideCheckIDs ?? []) {
        const level = levels.get(id);
        if (level !== undefined && level !== 'baseline') throw new Error(`check ${check.id}: overrides ${level} check ${id}`);
      }
    }
  }
}

export class CheckRegistry implements Evaluator {
  /** The newest minimum version of any check: `latest` means this. */
  readonly maxVersion: Version;
  private readonly baseline = new Map<string, CheckPodFn[]>();
  private readonly restricted = new Map<string, CheckPodFn[]>();

  constructor(checks: readonly Check[]) {
    validateChecks(checks);
    let max = majorMinor(1, 0);
    for (const c of checks) {
      const last = c.versions[c.versions.length - 1]!.minimumVersion;
      if (olderThan(max, last)) max = last;
    }
    this.maxVersion = max;
    const byId = (a: Check, b: Check): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const baselineChecks = checks.filter((c) => c.level === 'baseline').sort(byId);
    const restrictedChecks = checks.filter((c) => c.level === 'restricted').sort(byId);
    for (let v = majorMinor(1, 0); !olderThan(max, v); v = nextMinor(v)) {
      const restrictedHere = restrictedChecks.map((c) => inForce(c, v)).filter((c): c is VersionedCheck => c !== undefined);
      const overridden = new Set(restrictedHere.flatMap((c) => c.overrideCheckIDs ?? []));
      const baselineHere = baselineChecks.map((c) => ({ id: c.id, vc: inForce(c, v) }));
      this.baseline.set(key(v), baselineHere.flatMap(({ vc }) => (vc === undefined ? [] : [vc.checkPod])));
      this.restricted.set(key(v), [
        ...baselineHere.flatMap(({ id, vc }) => (vc === undefined || overridden.has(id) ? [] : [vc.checkPod])),
        ...restrictedHere.map((c) => c.checkPod),
      ]);
    }
  }

  /** The checks of a level at a version (for tests and tools). */
  checksFor(lv: LevelVersion): readonly CheckPodFn[] {
    if (lv.level === 'privileged') return [];
    const version = olderThan(this.maxVersion, lv.version) ? this.maxVersion : lv.version;
    return (lv.level === 'baseline' ? this.baseline : this.restricted).get(key(version)) ?? [];
  }

  evaluatePod(lv: LevelVersion, meta: PodMetaView, spec: PodSpecView): CheckResult[] {
    return this.checksFor(lv).map((check) => check(meta, spec));
  }
}

/** The implementation in force at `v`: the last whose minimum version is ≤ v. */
function inForce(check: Check, v: Version): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const vc of check.versions) if (!olderThan(v, vc.minimumVersion) || sameVersion(v, vc.minimumVersion)) found = vc;
  return found;
}
