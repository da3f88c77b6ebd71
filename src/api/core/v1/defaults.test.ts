import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { applyPodAdmissionDefaults } from './admission-defaults.js';
import { defaultPod, defaultPodTemplateSpec, imageTag, volumeSources } from './defaults.js';
import { podQOSClass } from './qos.js';

const basicPod = (): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

describe('core/v1 defaults', () => {
  it('defaults a pod as upstream does', () => {
    const pod = basicPod();
    defaultPod(pod);
    assert.deepEqual(pod.spec, {
      containers: [
        {
          name: 'c',
          image: 'nginx',
          imagePullPolicy: 'Always',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          resources: {},
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
    });
  });

  it('is idempotent', () => {
    const once = basicPod();
    defaultPod(once);
    const twice = structuredClone(once);
    defaultPod(twice);
    assert.deepEqual(twice, once);
  });

  it('keeps what the client set', () => {
    const pod = basicPod();
    pod.spec!.restartPolicy = 'Never';
    pod.spec!.dnsPolicy = 'Default';
    pod.spec!.terminationGracePeriodSeconds = 5;
    pod.spec!.enableServiceLinks = false;
    pod.spec!.containers[0]!.imagePullPolicy = 'Never';
    defaultPod(pod);
    assert.equal(pod.spec!.restartPolicy, 'Never');
    assert.equal(pod.spec!.dnsPolicy, 'Default');
    assert.equal(pod.spec!.terminationGracePeriodSeconds, 5);
    assert.equal(pod.spec!.enableServiceLinks, false);
    assert.equal(pod.spec!.containers[0]!.imagePullPolicy, 'Never');
  });

  it('pull policy: Always for :latest or no tag, IfNotPresent otherwise', () => {
    const policy = (image: string): string | undefined => {
      const pod: Pod = { metadata: {}, spec: { containers: [{ name: 'c', image }] } };
      defaultPod(pod);
      return pod.spec!.containers[0]!.imagePullPolicy;
    };
    assert.equal(policy('nginx'), 'Always');
    assert.equal(policy('nginx:latest'), 'Always');
    assert.equal(policy('registry.local:5000/team/nginx'), 'Always');
    assert.equal(policy('nginx:1.25'), 'IfNotPresent');
    assert.equal(policy('registry.local:5000/nginx:1.25'), 'IfNotPresent');
    assert.equal(policy('nginx@sha256:' + 'a'.repeat(64)), 'IfNotPresent');
    assert.equal(policy('Nginx'), 'IfNotPresent');
    assert.equal(imageTag('busybox:1.36'), '1.36');
  });

  it('defaults ports, probes, env field refs and volumes', () => {
    const pod: Pod = {
      metadata: {},
      spec: {
        containers: [
          {
            name: 'c',
            image: 'x:1',
            ports: [{ containerPort: 80 }],
            livenessProbe: { httpGet: { port: 80 } },
            readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
            env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          },
        ],
        volumes: [
          { name: 'a' },
          { name: 'b', configMap: { name: 'cm' } },
          { name: 'c', secret: { secretName: 's' } },
          { name: 'd', hostPath: { path: '/tmp' } },
        ],
      },
    };
    defaultPod(pod);
    const c = pod.spec!.containers[0]!;
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(c.livenessProbe, {
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.equal(c.readinessProbe!.periodSeconds, 5);
    assert.equal(c.env![0]!.valueFrom!.fieldRef!.apiVersion, 'v1');
    assert.deepEqual(pod.spec!.volumes, [
      { name: 'a', emptyDir: {} },
      { name: 'b', configMap: { name: 'cm', defaultMode: 420 } },
      { name: 'c', secret: { secretName: 's', defaultMode: 420 } },
      { name: 'd', hostPath: { path: '/tmp', type: '' } },
    ]);
  });

  it('requests default to limits in pods, not in templates', () => {
    const pod: Pod = { metadata: {}, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1' }, requests: { memory: '1Gi' } } }] } };
    defaultPod(pod);
    assert.deepEqual(pod.spec!.containers[0]!.resources, { limits: { cpu: '1' }, requests: { memory: '1Gi', cpu: '1' } });
    const template: PodTemplateSpec = { spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1' } } }] } };
    defaultPodTemplateSpec(template);
    assert.deepEqual(template.spec!.containers[0]!.resources, { limits: { cpu: '1' } });
    assert.deepEqual(template.metadata, { creationTimestamp: null });
    assert.equal(template.spec!.enableServiceLinks, undefined);
  });

  it('host network pods publish their container ports on the host', () => {
    const pod: Pod = { metadata: {}, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8080 }] }] } };
    defaultPod(pod);
    assert.equal(pod.spec!.containers[0]!.ports![0]!.hostPort, 8080);
  });
});

describe('pod admission defaults', () => {
  it('adds the default service account, priority and not-ready/unreachable tolerations', () => {
    const pod = basicPod();
    applyPodAdmissionDefaults(pod);
    assert.equal(pod.spec!.serviceAccountName, 'default');
    assert.equal(pod.spec!.serviceAccount, 'default');
    assert.equal(pod.spec!.priority, 0);
    assert.equal(pod.spec!.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(pod.spec!.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  it('keeps a named service account and existing tolerations', () => {
    const pod = basicPod();
    pod.spec!.serviceAccountName = 'builder';
    pod.spec!.priorityClassName = 'high';
    pod.spec!.tolerations = [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }];
    applyPodAdmissionDefaults(pod);
    assert.equal(pod.spec!.serviceAccountName, 'builder');
    assert.equal(pod.spec!.priority, undefined);
    assert.deepEqual(pod.spec!.tolerations!.map((t) => [t.key, t.tolerationSeconds]), [
      ['node.kubernetes.io/not-ready', 10],
      ['node.kubernetes.io/unreachable', 300],
    ]);
  });

  it('a toleration of every key covers both taints', () => {
    const pod = basicPod();
    pod.spec!.tolerations = [{ operator: 'Exists' }];
    applyPodAdmissionDefaults(pod);
    assert.equal(pod.spec!.tolerations.length, 1);
  });
});

describe('pod QoS class', () => {
  const withResources = (resources: object[]): Pod => ({
    metadata: {},
    spec: { containers: resources.map((r, i) => ({ name: `c${i}`, image: 'x', resources: r })) },
  });
  it('BestEffort, Burstable, Guaranteed', () => {
    assert.equal(podQOSClass(withResources([{}])), 'BestEffort');
    assert.equal(podQOSClass(withResources([{ requests: { cpu: '100m' } }])), 'Burstable');
    assert.equal(podQOSClass(withResources([{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1Gi' } }])), 'Guaranteed');
    assert.equal(podQOSClass(withResources([{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } }])), 'Burstable');
    assert.equal(podQOSClass(withResources([{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }, {}])), 'Burstable');
  });
  it('counts only positive cpu and memory, summed over containers and init containers', () => {
    assert.equal(podQOSClass(withResources([{ limits: { cpu: '0', memory: '1Gi' }, requests: { memory: '1Gi' } }])), 'Burstable');
    assert.equal(podQOSClass(withResources([{ limits: { 'example.com/gpu': '1' } }])), 'BestEffort');
    assert.equal(podQOSClass(withResources([{ limits: null, requests: null }])), 'BestEffort');
    const pod = withResources([{ limits: { cpu: '1', memory: '1Gi' } }]);
    pod.spec!.initContainers = [{ name: 'i', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }];
    assert.equal(podQOSClass(pod), 'Burstable'); // the regular container requests nothing: 2 cpu limited, 1 requested
    pod.spec!.containers[0]!.resources!.requests = { cpu: '1', memory: '1Gi' };
    assert.equal(podQOSClass(pod), 'Guaranteed');
    pod.spec!.initContainers[0]!.resources!.limits = { cpu: '1' };
    assert.equal(podQOSClass(pod), 'Burstable');
  });
  it('pod-level resources decide when the pod has them', () => {
    const pod = withResources([{}]);
    (pod.spec as { resources?: object }).resources = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } };
    assert.equal(podQOSClass(pod), 'Guaranteed');
    (pod.spec as { resources?: object }).resources = { limits: { cpu: '1' } };
    assert.equal(podQOSClass(pod), 'Burstable');
  });
});

describe('volumeSources', () => {
  it('the one source a volume names, or none', () => {
    assert.deepEqual(volumeSources({ name: 'v', configMap: { name: 'c' } }), ['configMap']);
    assert.deepEqual(volumeSources({ name: 'v' }), []);
    assert.deepEqual(volumeSources({ name: 'v', secret: null, emptyDir: undefined } as never), []);
    assert.deepEqual(volumeSources({ name: 'v', secret: null, emptyDir: {} } as never), ['emptyDir']);
  });
  it('several sources in upstream order, whatever the order of the keys', () => {
    assert.deepEqual(volumeSources({ name: 'v', csi: { driver: 'd' }, secret: {}, hostPath: { path: '/' } }), ['hostPath', 'secret', 'csi']);
    assert.deepEqual(volumeSources({ projected: {}, name: 'v', emptyDir: {} }), ['emptyDir', 'projected']);
  });
});

describe('imageTag', () => {
  it('answers the same for an image it has read before', () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(imageTag('nginx'), 'latest');
      assert.equal(imageTag('registry.example/web:1.2.3'), '1.2.3');
      assert.equal(imageTag('Bad/Image'), '');
      assert.equal(imageTag(' nginx'), '');
    }
  });
});
