import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import { formatFieldError, type FieldError } from '../../../machinery/field-errors.js';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from './defaults.js';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateDeployment,
  validateDeploymentStatusUpdate,
  validateDeploymentUpdate,
  validateReplicaSet,
  validateStatefulSet,
  validateStatefulSetUpdate,
} from './validation.js';

const messages = (errs: FieldError[]): string[] => errs.map(formatFieldError);
const meta = (name = 'web') => ({ name, namespace: 'default' });
const stored = <T extends { metadata?: object }>(o: T): T => ({ ...o, metadata: { ...o.metadata, uid: 'u', resourceVersion: '3', creationTimestamp: '2024-01-01T00:00:00Z' } });
const template = (labels: Record<string, string> = { app: 'web' }) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

function deployment(spec: Partial<NonNullable<Deployment['spec']>> = {}): Deployment {
  const d: Deployment = { metadata: meta(), spec: { selector: { matchLabels: { app: 'web' } }, template: template(), ...spec } };
  defaultDeployment(d);
  return d;
}

describe('deployment validation', () => {
  it('accepts a defaulted deployment', () => {
    assert.deepEqual(messages(validateDeployment(deployment())), []);
  });

  it('the selector must match the template labels (kubectl users know this line)', () => {
    assert.deepEqual(messages(validateDeployment(deployment({ template: template({ app: 'x' }) }))), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
    ]);
  });

  it('the selector is required and may not be empty', () => {
    const missing = deployment();
    delete (missing.spec as { selector?: unknown }).selector;
    // An absent selector selects nothing, so upstream also reports the template as unmatched.
    assert.deepEqual(messages(validateDeployment(missing)), [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    assert.deepEqual(messages(validateDeployment(deployment({ selector: {} }))), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
  });

  it('replicas, strategy and deadlines', () => {
    const d = deployment({ replicas: -1, minReadySeconds: 700, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } });
    assert.deepEqual(messages(validateDeployment(d)), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
      'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ]);
    const bad = deployment({ strategy: { type: 'Recreate', rollingUpdate: {} } });
    assert.deepEqual(messages(validateDeployment(bad)), ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]);
    const percent = deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '120%', maxSurge: 'x' } } });
    assert.deepEqual(messages(validateDeployment(percent)), [
      `spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
    ]);
  });

  it('the template must always restart', () => {
    const d = deployment();
    d.spec!.template.spec!.restartPolicy = 'Never';
    assert.deepEqual(messages(validateDeployment(d)), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);
  });

  it('the selector is immutable', () => {
    const old = stored(deployment());
    const next = stored(deployment({ selector: { matchLabels: { app: 'x' } }, template: template({ app: 'x' }) }));
    assert.deepEqual(messages(validateDeploymentUpdate(next, old)), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });

  it('status counters', () => {
    const old = stored(deployment());
    const next = structuredClone(old);
    next.status = { replicas: 1, readyReplicas: 2, availableReplicas: 3 };
    assert.deepEqual(messages(validateDeploymentStatusUpdate(next, old)), [
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
    ]);
  });
});

describe('replica set, stateful set, daemon set and controller revision validation', () => {
  it('replica sets', () => {
    const rs: ReplicaSet = { metadata: meta(), spec: { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'db' }) } };
    defaultReplicaSet(rs);
    assert.deepEqual(messages(validateReplicaSet(rs)), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `selector` does not match template `labels`',
    ]);
  });

  it('stateful sets: DNS label names, and only some fields change', () => {
    const sts: StatefulSet = { metadata: meta('db'), spec: { serviceName: 'db', selector: { matchLabels: { app: 'web' } }, template: template() } };
    defaultStatefulSet(sts);
    assert.deepEqual(messages(validateStatefulSet(sts)), []);
    const dotted = structuredClone(sts);
    dotted.metadata!.name = 'db.v1';
    assert.match(messages(validateStatefulSet(dotted))[0]!, /^metadata\.name: Invalid value: "db\.v1": must not contain dots/);
    const old = stored(sts);
    const next = structuredClone(old);
    next.spec!.replicas = 3;
    assert.deepEqual(messages(validateStatefulSetUpdate(next, old)), []);
    next.spec!.serviceName = 'other';
    assert.deepEqual(messages(validateStatefulSetUpdate(next, old)), [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const bad = structuredClone(sts);
    bad.spec!.podManagementPolicy = 'Whenever';
    bad.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Keep', whenScaled: 'Retain' };
    assert.deepEqual(messages(validateStatefulSet(bad)), [
      `spec.podManagementPolicy: Invalid value: "Whenever": must be 'OrderedReady' or 'Parallel'`,
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"',
    ]);
  });

  it('daemon sets', () => {
    const ds: DaemonSet = { metadata: meta('agent'), spec: { selector: { matchLabels: { app: 'web' } }, template: template() } };
    defaultDaemonSet(ds);
    assert.deepEqual(messages(validateDaemonSet(ds)), []);
    ds.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } };
    assert.deepEqual(messages(validateDaemonSet(ds)), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']);
    ds.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } };
    assert.deepEqual(messages(validateDaemonSet(ds)), [
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ]);
  });

  it('controller revisions: data is mandatory and immutable', () => {
    const rev: ControllerRevision = { metadata: meta('r1'), revision: 1 } as ControllerRevision;
    assert.deepEqual(messages(validateControllerRevision(rev)), ['data: Required value: data is mandatory']);
    const old = stored({ ...rev, data: { a: 1 } });
    const next = { ...old, data: { a: 2 } };
    assert.deepEqual(messages(validateControllerRevisionUpdate(next, old)), ['data: Invalid value: runtime.RawExtension{"a":2}: field is immutable']);
  });
});
