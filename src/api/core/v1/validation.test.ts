import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, PodTemplate } from 'kubernetes-types/core/v1.js';
import { formatFieldError } from '../../../machinery/field-errors.js';
import { applyPodAdmissionDefaults } from './admission-defaults.js';
import { defaultPod, defaultPodTemplate } from './defaults.js';
import { validatePod, validatePodBinding, validatePodStatusUpdate, validatePodTemplate, validatePodUpdate } from './validation.js';

/** A defaulted pod, as validation sees it after the store's defaults. */
function pod(spec: Record<string, unknown> = {}, name = 'p'): Pod {
  const p = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } } as Pod;
  defaultPod(p);
  applyPodAdmissionDefaults(p);
  return p;
}

const messages = (errs: ReturnType<typeof validatePod>): string[] => errs.map(formatFieldError);
const stored = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, resourceVersion: '5', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' } });

describe('pod validation', () => {
  it('accepts a defaulted pod', () => {
    assert.deepEqual(messages(validatePod(pod())), []);
  });

  it('requires containers', () => {
    assert.deepEqual(messages(validatePod(pod({ containers: [] }))), ['spec.containers: Required value']);
  });

  it('checks container names and images', () => {
    const p = pod({ containers: [{ name: 'Web', image: 'x' }, { name: 'a', image: '' }, { name: 'a', image: 'y' }] });
    assert.deepEqual(messages(validatePod(p)), [
      `spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'spec.containers[1].image: Required value',
      'spec.containers[2].name: Duplicate value: "a"',
    ]);
  });

  it('checks ports', () => {
    const p = pod({ containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 70000 }, { containerPort: 0, name: 'http' }, { containerPort: 81, name: 'http', protocol: 'ICMP' }] }] });
    assert.deepEqual(messages(validatePod(p)), [
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[1].containerPort: Required value',
      'spec.containers[0].ports[2].name: Duplicate value: "http"',
      'spec.containers[0].ports[2].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });

  it('checks env names and sources', () => {
    const p = pod({
      containers: [
        {
          name: 'c',
          image: 'x',
          env: [{ name: 'A=B' }, { name: 'X', valueFrom: {} }, { name: 'Y', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }],
        },
      ],
    });
    assert.deepEqual(messages(validatePod(p)), [
      `spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      'spec.containers[0].env[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      'spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.bogus": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
    ]);
  });

  it('checks resources', () => {
    const p = pod({ containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1' }, requests: { cpu: '2', bogus: '1' } } }] });
    assert.deepEqual(messages(validatePod(p)), [
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
      'spec.containers[0].resources.requests[bogus]: Invalid value: "bogus": must be a standard resource for containers',
    ]);
  });

  it('reports a request above its limit on requests, with canonical quantities, as upstream does', () => {
    const p = pod({ containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '0.1' }, requests: { cpu: '0.2' } } }] });
    assert.deepEqual(messages(validatePod(p)), [
      'spec.containers[0].resources.requests: Invalid value: "200m": must be less than or equal to cpu limit of 100m',
    ]);
  });

  it('checks restart and DNS policies', () => {
    assert.deepEqual(messages(validatePod(pod({ restartPolicy: 'Sometimes', dnsPolicy: 'Custom' }))), [
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Custom": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });

  it('checks probes', () => {
    const p = pod({
      containers: [
        { name: 'c', image: 'x', livenessProbe: { successThreshold: 2, httpGet: { port: 80 } }, readinessProbe: { periodSeconds: -1 } },
      ],
    });
    assert.deepEqual(messages(validatePod(p)), [
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'spec.containers[0].readinessProbe: Required value: must specify a handler type',
      'spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('checks volumes and mounts', () => {
    const p = pod({
      volumes: [{ name: 'a', configMap: { name: 'cm' } }, { name: 'a', emptyDir: {} }, { name: 'b', hostPath: { path: '' } }],
      containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'z', mountPath: '/z' }] }],
    });
    assert.deepEqual(messages(validatePod(p)), [
      'spec.volumes[1].name: Duplicate value: "a"',
      'spec.volumes[2].hostPath.path: Required value',
      'spec.containers[0].volumeMounts[0].name: Not found: "z"',
    ]);
  });

  it('checks the node name, active deadline and tolerations', () => {
    const p = pod({ nodeName: 'Node_1', activeDeadlineSeconds: 0, tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }, { operator: 'Equal', tolerationSeconds: 5 }] });
    assert.deepEqual(messages(validatePod(p)), [
      `spec.nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
      `spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"k", Operator:"Exists", Value:"v", Effect:"", TolerationSeconds:(*int64)(nil)}: value must be empty when \`operator\` is 'Exists'`,
      'spec.tolerations[1].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      "spec.tolerations[1].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    ]);
  });

  it('checks object metadata', () => {
    const p = pod({}, 'Bad_Name');
    assert.match(messages(validatePod(p))[0]!, /^metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  });
});

describe('pod update validation', () => {
  it('allows changing images, adding tolerations and shortening the deadline', () => {
    const old = stored(pod({ activeDeadlineSeconds: 100 }));
    const next = structuredClone(old);
    next.spec!.containers[0]!.image = 'nginx:2';
    next.spec!.tolerations!.push({ key: 'x', operator: 'Exists' });
    next.spec!.activeDeadlineSeconds = 50;
    assert.deepEqual(messages(validatePodUpdate(next, old)), []);
  });

  it('forbids other spec changes with upstream message', () => {
    const old = stored(pod());
    const next = structuredClone(old);
    next.spec!.restartPolicy = 'Never';
    const [message] = messages(validatePodUpdate(next, old));
    assert.ok(
      message!.startsWith(
        'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
      ),
      message,
    );
    assert.match(message!, /- \tRestartPolicy: "Always",\n\+ \tRestartPolicy: "Never",/);
  });

  it('forbids adding containers, removing tolerations, lengthening the deadline', () => {
    const old = stored(pod({ activeDeadlineSeconds: 10 }));
    const more = structuredClone(old);
    more.spec!.containers.push(structuredClone({ ...old.spec!.containers[0]!, name: 'd' }));
    assert.deepEqual(messages(validatePodUpdate(more, old)), ['spec.containers: Forbidden: pod updates may not add or remove containers']);
    const fewer = structuredClone(old);
    fewer.spec!.tolerations = [];
    assert.deepEqual(messages(validatePodUpdate(fewer, old)), ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']);
    const longer = structuredClone(old);
    longer.spec!.activeDeadlineSeconds = 20;
    assert.deepEqual(messages(validatePodUpdate(longer, old)), ['spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value']);
  });

  it('status updates may not move the pod or revive a finished container', () => {
    const old = stored(pod({ restartPolicy: 'Never', nodeName: 'n1' }));
    (old as { status?: unknown }).status = { phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 1 } } }] };
    const next = structuredClone(old);
    next.spec!.nodeName = 'n2';
    (next as { status?: unknown }).status = { phase: 'Running', containerStatuses: [{ name: 'c', state: { running: {} } }], podIPs: [{ ip: 'x' }] };
    const errs = messages(validatePodStatusUpdate(next, old));
    assert.deepEqual(errs.slice(0, 2), [
      'status.nodeName: Forbidden: may not be changed directly',
      'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
    ]);
    assert.match(errs[2]!, /^status\.podIPs\[0\]: Invalid value: "x": must be a valid IP address/);
  });
});

describe('pod template and binding validation', () => {
  it('validates the template of a PodTemplate', () => {
    const t: PodTemplate = { metadata: { name: 't', namespace: 'default' }, template: { metadata: { labels: { 'a b': 'c' } }, spec: { containers: [] } } };
    defaultPodTemplate(t);
    const errs = messages(validatePodTemplate(t));
    assert.match(errs[0]!, /^template\.labels: Invalid value: "a b": name part must consist of alphanumeric characters/);
    assert.equal(errs[1], 'template.spec.containers: Required value');
  });

  it('a binding names a node', () => {
    assert.deepEqual(messages(validatePodBinding({ metadata: {}, target: { kind: 'Pod', name: '' } })), [
      'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
      'target.name: Required value',
    ]);
  });
});
