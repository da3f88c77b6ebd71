import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATEST, majorMinor, type LevelVersion } from '../api/level-version.js';
import { container, RESTRICTED_CONTEXT, specWith } from '../testing/pods.js';
import { ALLOWED, forbiddenResult, type Check } from './check.js';
import { DEFAULT_CHECKS } from './default-checks.js';
import { aggregateCheckResults, CheckRegistry, forbiddenDetail, forbiddenReason, validateChecks } from './evaluator.js';
import type { PodSpecView } from './pod-view.js';

const registry = new CheckRegistry(DEFAULT_CHECKS);
const restricted: LevelVersion = { level: 'restricted', version: LATEST };
const baseline: LevelVersion = { level: 'baseline', version: LATEST };
const evaluate = (lv: LevelVersion, spec: PodSpecView) => aggregateCheckResults(registry.evaluatePod(lv, { name: 'p' }, spec));

describe('the check registry', () => {
  it('gives upstream 1.33\'s enforce message for a privileged pod under restricted:latest', () => {
    const r = evaluate(restricted, specWith([container('c', { privileged: true })]));
    assert.equal(
      forbiddenDetail(r),
      'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    assert.equal(forbiddenReason(r), 'privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile');
  });
  it('allows a compliant pod under restricted, and anything under privileged', () => {
    assert.equal(evaluate(restricted, specWith([container('c', RESTRICTED_CONTEXT)])).allowed, true);
    assert.equal(evaluate({ level: 'privileged', version: LATEST }, specWith([container('c', { privileged: true })], { hostNetwork: true })).allowed, true);
  });
  it('runs baseline checks first, each group in ID order', () => {
    const spec = specWith([container('c', { privileged: true, capabilities: { add: ['SYS_ADMIN'] } })], { hostNetwork: true, volumes: [{ name: 'h', hostPath: { path: '/' } }] });
    assert.equal(forbiddenReason(evaluate(baseline, spec)), 'non-default capabilities, host namespaces, hostPath volumes, privileged');
    // restricted: capabilities_baseline and hostPathVolumes are overridden by their restricted versions
    assert.equal(
      forbiddenReason(evaluate(restricted, spec)),
      'host namespaces, privileged, allowPrivilegeEscalation != false, unrestricted capabilities, restricted volume types, runAsNonRoot != true, seccompProfile',
    );
  });
  it('evaluates with the newest implementation at or below the version', () => {
    const spec = specWith([container('c', RESTRICTED_CONTEXT)], { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem' }] } });
    assert.equal(evaluate({ level: 'baseline', version: majorMinor(1, 31) }, spec).allowed, false);
    assert.equal(evaluate({ level: 'baseline', version: majorMinor(1, 32) }, spec).allowed, true);
    assert.equal(evaluate({ level: 'baseline', version: majorMinor(1, 99) }, spec).allowed, true);
    assert.equal(registry.maxVersion.minor, 32);
  });
  it('applies a check only from its first version', () => {
    const root = specWith([container('c', { ...RESTRICTED_CONTEXT, runAsUser: 0 })]);
    assert.equal(evaluate({ level: 'restricted', version: majorMinor(1, 22) }, root).allowed, true);
    assert.equal(forbiddenReason(evaluate({ level: 'restricted', version: majorMinor(1, 23) }, root)), 'runAsUser=0');
    // before 1.22 restricted checks the baseline capabilities, not drop ALL
    const noDrop = specWith([container('c', { allowPrivilegeEscalation: false, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } })]);
    assert.equal(evaluate({ level: 'restricted', version: majorMinor(1, 21) }, noDrop).allowed, true);
    assert.equal(evaluate({ level: 'restricted', version: majorMinor(1, 22) }, noDrop).allowed, false);
  });
  it('aggregates a result without reason as unknown, and omits empty details', () => {
    const a = aggregateCheckResults([ALLOWED, { allowed: false }, forbiddenResult('x', 'why')]);
    assert.equal(forbiddenDetail(a), 'unknown forbidden reason, x (why)');
  });
  it('refuses malformed check lists', () => {
    const fn = () => ALLOWED;
    const ok: Check = { id: 'a', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: fn }] };
    assert.throws(() => validateChecks([ok, ok]), /multiple checks registered for ID a/);
    assert.throws(() => validateChecks([{ ...ok, versions: [] }]), /check a: empty/);
    assert.throws(() => validateChecks([{ ...ok, versions: [{ minimumVersion: LATEST, checkPod: fn }] }]), /version cannot be 'latest'/);
    assert.throws(() => validateChecks([{ ...ok, versions: [ok.versions[0]!, ok.versions[0]!] }]), /strictly increasing/);
    assert.throws(() => validateChecks([{ ...ok, versions: [{ ...ok.versions[0]!, overrideCheckIDs: ['x'] }] }]), /only restricted checks may set overrides/);
    const r: Check = { id: 'r', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: fn, overrideCheckIDs: ['r2'] }] };
    const r2: Check = { id: 'r2', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: fn }] };
    assert.throws(() => validateChecks([r, r2]), /overrides restricted check r2/);
  });
});
