import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { notFound, StatusError } from '../../../../machinery/status.js';
import type { GenericStore } from '../../../registry/generic/store.js';
import type { AdmissionAttributes, AdmissionDependencies } from '../../interfaces.js';
import { NAME, newPodSecurity, newPodSecurityPlugin } from './pod-security.js';
import { PRIVILEGED_CONTAINER } from './testing/requests.js';
import { newHarness } from '../resource-quota/testing/admission-harness.js';

function deps(namespaces: Record<string, Record<string, string>>, pods: KubeObject[] = [], failGet = false): AdmissionDependencies {
  const nsStore = {
    async get(_ns: string | undefined, name: string) {
      if (failGet) throw new Error('storage unavailable');
      const labels = namespaces[name];
      if (labels === undefined) throw notFound({ group: '', resource: 'namespaces' }, name);
      return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
    },
  };
  const podStore = { async list(ns: string | undefined) { return { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: pods.filter((p) => p.metadata.namespace === ns) }; } };
  return {
    stores: (group, version, resource) => (group === '' && version === 'v1' ? ((resource === 'namespaces' ? nsStore : resource === 'pods' ? podStore : undefined) as unknown as GenericStore | undefined) : undefined),
    signal: new AbortController().signal,
  };
}

function attrs(o: Partial<AdmissionAttributes> & Pick<AdmissionAttributes, 'object'>): AdmissionAttributes & { warnings: string[]; annotations: Record<string, string> } {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: 'x',
    name: '',
    oldObject: undefined,
    dryRun: false,
    userInfo: { name: 'alice', groups: [] },
    addWarning: (t) => void warnings.push(t),
    addAuditAnnotation: (k, v) => void (annotations[k] = v),
    warnings,
    annotations,
    ...o,
  };
}

const privilegedPod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'priv', namespace: 'x' }, spec: { containers: [PRIVILEGED_CONTAINER] } };

describe('the PodSecurity plugin', () => {
  it('is named and built as upstream\'s, validating CREATE and UPDATE only', () => {
    const plugin = newPodSecurity(deps({}));
    assert.equal(plugin.name, NAME);
    assert.equal(NAME, 'PodSecurity');
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((o) => plugin.handles(o)), [true, true, false, false]);
  });

  it('throws the 403 and records the prefixed audit annotation', async () => {
    const plugin = newPodSecurityPlugin(deps({ x: { 'pod-security.kubernetes.io/enforce': 'baseline' } }));
    const a = attrs({ object: privilegedPod });
    await assert.rejects(() => Promise.resolve(plugin.validate(a)), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.message, 'pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
      return true;
    });
    assert.deepEqual(a.annotations, { 'pod-security.kubernetes.io/enforce-policy': 'baseline:latest' });
  });

  it('passes warnings to the request', async () => {
    const plugin = newPodSecurityPlugin(deps({ x: { 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit': 'baseline' } }));
    const a = attrs({ object: privilegedPod });
    await plugin.validate(a);
    assert.deepEqual(a.warnings, ['would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)']);
    assert.equal(a.annotations['pod-security.kubernetes.io/audit-violations'], 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  });

  it('leaves a missing namespace to NamespaceLifecycle, and answers 500 when namespaces cannot be read', async () => {
    await newPodSecurityPlugin(deps({})).validate(attrs({ object: privilegedPod }));
    await assert.rejects(() => Promise.resolve(newPodSecurityPlugin(deps({}, [], true)).validate(attrs({ object: privilegedPod }))), /failed to lookup namespace "x"/);
  });

  it('lists the namespace\'s pods when its enforce level tightens', async () => {
    const plugin = newPodSecurityPlugin(deps({}, [privilegedPod]));
    const ns = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels } });
    const a = attrs({
      operation: 'UPDATE',
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      namespace: '',
      name: 'x',
      object: ns({ 'pod-security.kubernetes.io/enforce': 'baseline' }),
      oldObject: ns({}),
    });
    await plugin.validate(a);
    assert.deepEqual(a.warnings, ['existing pods in namespace "x" violate the new PodSecurity enforce level "baseline:latest"', 'priv: privileged']);
  });

  it('ignores resources without pod specs and operations it does not handle', async () => {
    const plugin = newPodSecurityPlugin(deps({}, [], true));
    await plugin.validate(attrs({ resource: { group: '', version: 'v1', resource: 'configmaps' }, object: { metadata: { name: 'c' } } }));
    await plugin.validate(attrs({ operation: 'DELETE', object: undefined, oldObject: privilegedPod }));
  });

  it('decides a pod in a namespace it holds in memory without waiting, with the same refusal and annotations', async () => {
    const h = await newHarness([]);
    try {
      await h.store('', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } });
      const plugin = newPodSecurityPlugin(h.deps);
      // Until the namespaces' watch has listed, the store answers (a promise).
      const deadline = Date.now() + 10_000;
      let a = attrs({ object: privilegedPod });
      let outcome: unknown;
      for (;;) {
        try {
          outcome = plugin.validate(a);
        } catch (e: unknown) {
          outcome = e;
          break;
        }
        await Promise.resolve(outcome).catch(() => {});
        assert.ok(Date.now() < deadline, 'the namespace never reached the plugin');
        await new Promise((resolve) => setImmediate(resolve));
        a = attrs({ object: privilegedPod });
      }
      assert.ok(outcome instanceof StatusError);
      assert.equal(outcome.message, 'pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
      assert.deepEqual(a.annotations, { 'pod-security.kubernetes.io/enforce-policy': 'baseline:latest' });
    } finally {
      h.stop();
    }
  });

  it('refuses a bad configuration at construction', () => {
    assert.throws(() => newPodSecurityPlugin(deps({}), { configuration: { defaults: { enforce: 'strict' } } }), /must be one of privileged, baseline, restricted/);
  });
});
