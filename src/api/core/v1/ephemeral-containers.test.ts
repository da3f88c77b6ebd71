import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EphemeralContainer, Pod } from 'kubernetes-types/core/v1.js';
import { formatFieldError } from '../../../machinery/field-errors.js';
import { applyPodAdmissionDefaults } from './admission-defaults.js';
import { defaultPod } from './defaults.js';
import { validatePodEphemeralContainersUpdate, validatePodStatusUpdate, validatePodUpdate } from './validation.js';

/** A stored, defaulted pod with one container `app` (and an init container `setup`). */
function storedPod(ephemeral: EphemeralContainer[] = [], annotations?: Record<string, string>): Pod {
  const p = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', resourceVersion: '5', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      initContainers: [{ name: 'setup', image: 'busybox' }],
      ...(ephemeral.length > 0 ? { ephemeralContainers: ephemeral } : {}),
    },
  } as Pod;
  defaultPod(p);
  applyPodAdmissionDefaults(p);
  return p;
}

const debuggerContainer = (name = 'debugger', extra: Partial<EphemeralContainer> = {}): EphemeralContainer =>
  ({ name, image: 'busybox:1.35', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File', terminationMessagePath: '/dev/termination-log', ...extra }) as EphemeralContainer;

/** The old pod, and the same pod with `ephemeral` as its ephemeral containers. */
function update(oldEphemeral: EphemeralContainer[], ephemeral: EphemeralContainer[], annotations?: Record<string, string>): string[] {
  const old = storedPod(oldEphemeral, annotations);
  const next = structuredClone(old);
  next.spec!.ephemeralContainers = ephemeral;
  defaultPod(next); // as the store defaults every decoded body
  return validatePodEphemeralContainersUpdate(next, old).map(formatFieldError);
}

describe('ephemeral containers (pods/ephemeralcontainers)', () => {
  it('adds one to a pod, with a target among its containers or init containers', () => {
    assert.deepEqual(update([], [debuggerContainer('a', { targetContainerName: 'app' })]), []);
    assert.deepEqual(update([], [debuggerContainer('b', { targetContainerName: 'setup' })]), []);
    assert.deepEqual(update([debuggerContainer('a')], [debuggerContainer('a'), debuggerContainer('b')]), [], 'a second one beside the first');
  });

  it('refuses a name another container has, and a target that is no regular or init container', () => {
    assert.deepEqual(update([], [debuggerContainer('app')]), ['spec.ephemeralContainers[0].name: Duplicate value: "app"']);
    assert.deepEqual(update([], [debuggerContainer('x'), debuggerContainer('x', { command: ['sh'] })]), ['spec.ephemeralContainers[1].name: Duplicate value: "x"']);
    assert.deepEqual(update([debuggerContainer('x')], [debuggerContainer('x'), debuggerContainer('y', { targetContainerName: 'x' })]), [
      'spec.ephemeralContainers[1].targetContainerName: Not found: "x"',
    ]);
  });

  it('refuses what a workload relies on: ports, probes, lifecycle, resources, subPath', () => {
    const errs = update([], [
      debuggerContainer('d', {
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
        resources: { limits: { cpu: '1' } },
        lifecycle: { preStop: { exec: { command: ['true'] } } },
      }),
    ]);
    for (const field of ['ports', 'resources', 'readinessProbe', 'lifecycle']) {
      assert.ok(errs.includes(`spec.ephemeralContainers[0].${field}: Forbidden: cannot be set for an Ephemeral Container`), `${field}: ${errs.join('; ')}`);
    }
    const old = storedPod();
    old.spec!.volumes = [{ name: 'data', emptyDir: {} }];
    const next = structuredClone(old);
    next.spec!.ephemeralContainers = [debuggerContainer('d', { volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'x' }] })];
    assert.deepEqual(validatePodEphemeralContainersUpdate(next, old).map(formatFieldError), [
      'spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container',
    ]);
  });

  it('never lets one be changed or removed', () => {
    assert.deepEqual(update([debuggerContainer('a')], []), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "a" may not be removed\n']);
    assert.deepEqual(update([debuggerContainer('a')], [debuggerContainer('a', { image: 'busybox:1.36' })]), [
      'spec.ephemeralContainers: Forbidden: existing ephemeral containers "a" may not be changed\n',
    ]);
  });

  it("refuses any on a static pod's mirror", () => {
    assert.deepEqual(update([], [debuggerContainer()], { 'kubernetes.io/config.mirror': 'abc' }), [': Forbidden: static pods do not support ephemeral containers']);
  });

  it('keeps a terminated ephemeral container terminated in status updates, whatever the restart policy', () => {
    const old = storedPod([debuggerContainer('a')]);
    (old as { status?: unknown }).status = { phase: 'Running', ephemeralContainerStatuses: [{ name: 'a', image: 'busybox:1.35', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }] };
    const next = structuredClone(old);
    next.status!.ephemeralContainerStatuses![0]!.state = { running: { startedAt: '2024-01-01T00:00:01Z' } };
    assert.equal(old.spec?.restartPolicy, 'Always');
    assert.deepEqual(validatePodStatusUpdate(next, old).map(formatFieldError), ['status.ephemeralContainerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state']);
  });

  it('cannot come through an ordinary update of the pod', () => {
    const old = storedPod();
    const next = structuredClone(old);
    next.spec!.ephemeralContainers = [debuggerContainer()];
    const errs = validatePodUpdate(next, old).map(formatFieldError);
    assert.equal(errs.length, 1);
    assert.match(errs[0]!, /^spec: Forbidden: pod updates may not change fields other than/);
  });
});
