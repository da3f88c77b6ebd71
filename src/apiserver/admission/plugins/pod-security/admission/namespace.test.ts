import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admissionFor, COMPLIANT_CONTAINER, namespaceRequest, PRIVILEGED_CONTAINER, restrictedLabels } from '../testing/requests.js';
import type { PodSpecView } from '../policy/pod-view.js';
import type { ExistingPod } from './namespace-pods.js';

const pod = (name: string, containers: unknown[], ownerUid?: string): ExistingPod => ({
  metadata: { name, ...(ownerUid === undefined ? {} : { ownerReferences: [{ uid: ownerUid, controller: true }] }) },
  spec: { containers } as PodSpecView,
});

describe('PodSecurity admission of namespaces', () => {
  it('refuses invalid labels on create with upstream\'s 422', async () => {
    const r = await admissionFor({ namespaces: {}, pods: {} }).validate(namespaceRequest('x', restrictedLabels('bogus')));
    assert.equal(r.allowed, false);
    assert.equal(r.error?.status.code, 422);
    assert.equal(
      r.error?.message,
      'Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted',
    );
  });

  it('admits valid labels on create without looking at pods', async () => {
    assert.deepEqual(await admissionFor({ namespaces: {}, pods: {}, failPodList: true }).validate(namespaceRequest('x', restrictedLabels('restricted'))), {
      allowed: true,
      warnings: [],
      auditAnnotations: {},
    });
  });

  it('refuses newly invalid labels on update, but not invalid labels left unchanged', async () => {
    const a = admissionFor({ namespaces: {}, pods: {} });
    assert.equal((await a.validate(namespaceRequest('x', restrictedLabels('v2', 'warn-version'), {}))).error?.status.code, 422);
    const unchanged = await a.validate(namespaceRequest('x', { ...restrictedLabels('v2', 'warn-version'), other: 'y' }, restrictedLabels('v2', 'warn-version')));
    assert.equal(unchanged.allowed, true);
  });

  it('warns about existing pods that violate a new enforce level, grouped by reasons', async () => {
    const pods = {
      x: [
        pod('zeta', [PRIVILEGED_CONTAINER]),
        pod('alpha', [PRIVILEGED_CONTAINER]),
        pod('ok', [COMPLIANT_CONTAINER]),
        pod('web-1', [{ name: 'c', image: 'i' }], 'rs1'),
        pod('web-2', [{ name: 'c', image: 'i' }], 'rs1'),
        pod('web-3', [{ name: 'c', image: 'i' }], 'rs1'),
      ],
    };
    const r = await admissionFor({ namespaces: {}, pods }).validate(namespaceRequest('x', restrictedLabels('restricted'), {}));
    assert.equal(r.allowed, true);
    assert.deepEqual(r.warnings, [
      'existing pods in namespace "x" violate the new PodSecurity enforce level "restricted:latest"',
      'alpha (and 1 other pod): privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'web-1 (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
  });

  it('checks at most maxPodsToCheck pods, one per controller first', async () => {
    const pods = { x: [pod('a-1', [PRIVILEGED_CONTAINER], 'a'), pod('a-2', [PRIVILEGED_CONTAINER], 'a'), pod('b-1', [COMPLIANT_CONTAINER], 'b')] };
    const r = await admissionFor({ namespaces: {}, pods }, {}, { maxPodsToCheck: 2 }).validate(namespaceRequest('x', restrictedLabels('baseline'), {}));
    assert.deepEqual(r.warnings, [
      'new PodSecurity enforce level only checked against the first 2 of 3 existing pods',
      'existing pods in namespace "x" violate the new PodSecurity enforce level "baseline:latest"',
      'a-1: privileged',
    ]);
  });

  it('stops at the deadline', async () => {
    let t = 0;
    const pods = { x: [pod('a', [PRIVILEGED_CONTAINER]), pod('b', [PRIVILEGED_CONTAINER]), pod('c', [PRIVILEGED_CONTAINER])] };
    const r = await admissionFor({ namespaces: {}, pods }, {}, { podCheckTimeoutMs: 10, now: () => (t += 6) }).validate(namespaceRequest('x', restrictedLabels('baseline'), {}));
    assert.equal(r.warnings[0], 'new PodSecurity enforce level only checked against the first 2 of 3 existing pods');
  });

  it('skips the pod check when enforce is unchanged, privileged, or relaxed at the same version', async () => {
    const pods = { x: [pod('a', [PRIVILEGED_CONTAINER])] };
    const a = admissionFor({ namespaces: {}, pods });
    for (const [labels, old] of [
      [restrictedLabels('restricted'), restrictedLabels('restricted')],
      [restrictedLabels('privileged'), restrictedLabels('restricted')],
      [restrictedLabels('baseline'), restrictedLabels('restricted')],
    ] as const) {
      assert.deepEqual((await a.validate(namespaceRequest('x', labels, old))).warnings, [], JSON.stringify(labels));
    }
    // a relaxed level at another version is checked
    const other = await a.validate(namespaceRequest('x', { ...restrictedLabels('baseline'), 'pod-security.kubernetes.io/enforce-version': 'v1.30' }, restrictedLabels('restricted')));
    assert.equal(other.warnings.length, 2);
  });

  it('warns when the pods cannot be listed', async () => {
    const r = await admissionFor({ namespaces: {}, pods: {}, failPodList: true }).validate(namespaceRequest('x', restrictedLabels('restricted'), {}));
    assert.deepEqual(r.warnings, ['failed to list pods while checking new PodSecurity enforce level']);
  });

  it('warns that the policy of an exempt namespace is ignored', async () => {
    const a = admissionFor({ namespaces: {}, pods: {} }, { exemptions: { namespaces: ['x'] } });
    const labels = { ...restrictedLabels('restricted'), ...restrictedLabels('baseline', 'audit') };
    assert.deepEqual((await a.validate(namespaceRequest('x', labels))).warnings, [
      'namespace "x" is exempt from Pod Security, and the policy (enforce=restricted:latest, audit=baseline:latest) will be ignored',
    ]);
    assert.deepEqual((await a.validate(namespaceRequest('x', restrictedLabels('privileged')))).warnings, []);
  });
});
