import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  admissionFor,
  COMPLIANT_CONTAINER,
  deploymentRequest,
  podObject,
  podRequest,
  PRIVILEGED_CONTAINER,
  restrictedLabels,
  type FakeCluster,
} from '../testing/requests.js';

const RESTRICTED_DETAIL =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

const cluster = (labels: Record<string, string>): FakeCluster => ({ namespaces: { x: labels }, pods: {} });

describe('PodSecurity admission of pods', () => {
  it('enforce: refuses a violating pod with upstream\'s 403 message and the enforce-policy annotation', async () => {
    const r = await admissionFor(cluster(restrictedLabels('restricted'))).validate(podRequest(podObject('priv', [PRIVILEGED_CONTAINER])));
    assert.equal(r.allowed, false);
    assert.equal(r.error?.status.code, 403);
    assert.equal(r.error?.status.reason, 'Forbidden');
    assert.equal(r.error?.message, `pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`);
    assert.deepEqual(r.error?.status.details, { name: 'priv', group: '', kind: 'pods' });
    // warn follows enforce, but a refused request gets no warning; audit is privileged
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.auditAnnotations, { 'enforce-policy': 'restricted:latest' });
  });

  it('enforce: admits a compliant pod', async () => {
    const r = await admissionFor(cluster(restrictedLabels('restricted'))).validate(podRequest(podObject('ok', [COMPLIANT_CONTAINER])));
    assert.deepEqual(r, { allowed: true, warnings: [], auditAnnotations: { 'enforce-policy': 'restricted:latest' } });
  });

  it('warn: admits with a warning; audit: admits with the audit-violations annotation', async () => {
    const labels = { ...restrictedLabels('restricted', 'warn'), ...restrictedLabels('baseline', 'audit') };
    const r = await admissionFor(cluster(labels)).validate(podRequest(podObject('priv', [PRIVILEGED_CONTAINER])));
    assert.equal(r.allowed, true);
    assert.deepEqual(r.warnings, [`would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`]);
    assert.deepEqual(r.auditAnnotations, {
      'enforce-policy': 'privileged:latest',
      'audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
  });

  it('a fully privileged namespace (or one without labels, or missing) admits with enforce-policy privileged:latest', async () => {
    for (const c of [cluster({}), cluster(restrictedLabels('privileged')), { namespaces: {}, pods: {} }]) {
      const r = await admissionFor(c).validate(podRequest(podObject('priv', [PRIVILEGED_CONTAINER])));
      assert.deepEqual(r, { allowed: true, warnings: [], auditAnnotations: { 'enforce-policy': 'privileged:latest' } });
    }
  });

  it('evaluates at the labelled version', async () => {
    const root = podObject('root', [{ ...COMPLIANT_CONTAINER, securityContext: { ...COMPLIANT_CONTAINER.securityContext, runAsUser: 0 } }]);
    const old = await admissionFor(cluster({ ...restrictedLabels('restricted'), 'pod-security.kubernetes.io/enforce-version': 'v1.22' })).validate(podRequest(root));
    assert.equal(old.allowed, true);
    assert.equal(old.auditAnnotations['enforce-policy'], 'restricted:v1.22');
    const latest = await admissionFor(cluster(restrictedLabels('restricted'))).validate(podRequest(root));
    assert.equal(latest.error?.message, 'pods "root" is forbidden: violates PodSecurity "restricted:latest": runAsUser=0 (container "c" must not set runAsUser=0)');
  });

  it('invalid labels: a bad enforce level enforces restricted, with an error annotation', async () => {
    const r = await admissionFor(cluster(restrictedLabels('bogus'))).validate(podRequest(podObject('priv', [PRIVILEGED_CONTAINER])));
    assert.equal(r.allowed, false);
    assert.match(r.error?.message ?? '', /violates PodSecurity "restricted:latest"/);
    assert.equal(
      r.auditAnnotations['error'],
      'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted',
    );
  });

  it('ignores status, binding and other non-spec subresources, but not ephemeralcontainers', async () => {
    const a = admissionFor(cluster(restrictedLabels('restricted')));
    const pod = podObject('priv', [PRIVILEGED_CONTAINER]);
    for (const subresource of ['status', 'binding', 'eviction', 'exec', 'attach', 'log', 'portforward', 'proxy']) {
      assert.equal((await a.validate(podRequest(pod, { subresource, operation: 'UPDATE', oldObject: pod }))).allowed, true, subresource);
    }
    const withEphemeral = podObject('priv', [COMPLIANT_CONTAINER], { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] });
    const old = podObject('priv', [COMPLIANT_CONTAINER]);
    const r = await a.validate(podRequest(withEphemeral, { subresource: 'ephemeralcontainers', operation: 'UPDATE', oldObject: old }));
    assert.equal(r.allowed, false);
    assert.match(r.error?.message ?? '', /container "debug" must set securityContext.allowPrivilegeEscalation=false/);
  });

  it('admits updates that change no image and add no container, even of a violating pod', async () => {
    const a = admissionFor(cluster(restrictedLabels('restricted')));
    const old = podObject('priv', [PRIVILEGED_CONTAINER]);
    const relabelled = { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } };
    assert.equal((await a.validate(podRequest(relabelled, { operation: 'UPDATE', oldObject: old }))).allowed, true);
    const newImage = podObject('priv', [{ ...PRIVILEGED_CONTAINER, image: 'nginx' }]);
    assert.equal((await a.validate(podRequest(newImage, { operation: 'UPDATE', oldObject: old }))).allowed, false);
  });

  it('answers 500 when the namespace cannot be read', async () => {
    const r = await admissionFor({ namespaces: {}, pods: {}, failNamespaceLookup: true }).validate(podRequest(podObject('p', [COMPLIANT_CONTAINER])));
    assert.equal(r.allowed, false);
    assert.equal(r.error?.status.code, 500);
    assert.equal(r.error?.message, 'Internal error occurred: failed to lookup namespace "x"');
    assert.equal(r.auditAnnotations['error'], 'Internal error occurred: failed to lookup namespace "x": etcd is down');
  });

  it('exempts namespaces, users and runtime classes from the configuration', async () => {
    const c = cluster(restrictedLabels('restricted'));
    const pod = podObject('priv', [PRIVILEGED_CONTAINER]);
    const byNamespace = await admissionFor(c, { exemptions: { namespaces: ['x'] } }).validate(podRequest(pod));
    assert.deepEqual(byNamespace, { allowed: true, warnings: [], auditAnnotations: { exempt: 'namespace' } });
    const byUser = await admissionFor(c, { exemptions: { usernames: ['alice'] } }).validate(podRequest(pod));
    assert.deepEqual(byUser.auditAnnotations, { exempt: 'user' });
    const kata = podObject('priv', [PRIVILEGED_CONTAINER], { runtimeClassName: 'kata' });
    const byRuntimeClass = await admissionFor(c, { exemptions: { runtimeClasses: ['kata'] } }).validate(podRequest(kata));
    assert.deepEqual(byRuntimeClass, { allowed: true, warnings: [], auditAnnotations: { exempt: 'runtimeClass' } });
  });

  it('uses the configured defaults for unlabelled namespaces', async () => {
    const r = await admissionFor(cluster({}), { defaults: { enforce: 'baseline' } }).validate(podRequest(podObject('priv', [PRIVILEGED_CONTAINER])));
    assert.equal(r.error?.message, 'pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  });
});

describe('PodSecurity admission of workloads', () => {
  it('warns and audits on the pod template, never enforces', async () => {
    const labels = { ...restrictedLabels('restricted'), ...restrictedLabels('restricted', 'audit') };
    const r = await admissionFor(cluster(labels)).validate(deploymentRequest('web', [PRIVILEGED_CONTAINER]));
    assert.equal(r.allowed, true);
    assert.deepEqual(r.warnings, [`would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`]);
    assert.deepEqual(r.auditAnnotations, { 'audit-violations': `would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}` });
  });

  it('skips namespaces whose warn and audit are privileged, subresources and lookup failures', async () => {
    assert.deepEqual(await admissionFor(cluster({ ...restrictedLabels('baseline'), ...restrictedLabels('privileged', 'warn') })).validate(deploymentRequest('web', [PRIVILEGED_CONTAINER])), {
      allowed: true,
      warnings: [],
      auditAnnotations: {},
    });
    const c = cluster(restrictedLabels('restricted'));
    const scale = { ...deploymentRequest('web', [PRIVILEGED_CONTAINER]), subresource: 'scale' };
    assert.deepEqual((await admissionFor(c).validate(scale)).warnings, []);
    const failing = await admissionFor({ ...c, failNamespaceLookup: true }).validate(deploymentRequest('web', [PRIVILEGED_CONTAINER]));
    assert.deepEqual(failing, { allowed: true, warnings: [], auditAnnotations: { error: 'failed to lookup namespace "x": etcd is down' } });
  });

  it('reads the template of a CronJob', async () => {
    const object = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj', namespace: 'x' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], hostPID: true } } } } },
    };
    const r = await admissionFor(cluster(restrictedLabels('baseline', 'warn'))).validate({
      ...deploymentRequest('cj', []),
      kind: { group: 'batch', kind: 'CronJob' },
      resource: { group: 'batch', resource: 'cronjobs' },
      object,
    });
    assert.deepEqual(r.warnings, ['would violate PodSecurity "baseline:latest": host namespaces (hostPID=true)']);
  });

  it('ignores other resources', async () => {
    const r = await admissionFor(cluster(restrictedLabels('restricted'))).validate({ ...deploymentRequest('s', []), resource: { group: '', resource: 'services' } });
    assert.deepEqual(r, { allowed: true, warnings: [], auditAnnotations: {} });
  });
});
