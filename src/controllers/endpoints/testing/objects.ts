/** Small builders of Services and pods for the endpoints and EndpointSlice tests. */
import type { PodObject, ServiceObject } from '../pod-rules.js';

export interface TestPodOptions {
  readonly ip?: string;
  readonly ready?: boolean;
  readonly labels?: Record<string, string>;
  readonly node?: string;
  readonly phase?: string;
  readonly restartPolicy?: string;
  readonly deleting?: boolean;
  readonly ports?: { name?: string; containerPort: number; protocol?: string }[];
  readonly readyTransition?: string;
  readonly uid?: string;
  readonly namespace?: string;
}

export function testPod(name: string, options: TestPodOptions = {}): PodObject {
  const pod: PodObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'default', uid: options.uid ?? `uid-${name}`, labels: options.labels ?? { app: 'web' } },
    spec: {
      containers: [{ name: 'c', image: 'x', ports: options.ports ?? [{ name: 'http', containerPort: 8080 }] }],
      ...(options.node !== undefined ? { nodeName: options.node } : {}),
      ...(options.restartPolicy !== undefined ? { restartPolicy: options.restartPolicy } : {}),
    },
    status: {
      phase: options.phase ?? 'Running',
      ...(options.ip !== undefined ? { podIP: options.ip, podIPs: [{ ip: options.ip }] } : {}),
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True', lastTransitionTime: options.readyTransition ?? '2026-01-01T00:00:00Z' }],
    },
  };
  if (options.deleting === true) pod.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  return pod;
}

export interface TestServiceOptions {
  readonly selector?: Record<string, string> | undefined;
  readonly ports?: { name?: string; port: number; targetPort?: number | string; protocol?: string }[];
  readonly clusterIP?: string;
  readonly publishNotReadyAddresses?: boolean;
  readonly labels?: Record<string, string>;
  readonly type?: string;
}

export function testService(name: string, options: TestServiceOptions = {}): ServiceObject {
  const selector = 'selector' in options ? options.selector : { app: 'web' };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', uid: `uid-svc-${name}`, creationTimestamp: '2026-01-01T00:00:00Z', ...(options.labels !== undefined ? { labels: options.labels } : {}) },
    spec: {
      ...(selector !== undefined ? { selector } : {}),
      ports: options.ports ?? [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
      clusterIP: options.clusterIP ?? '10.96.0.10',
      ipFamilies: ['IPv4'],
      ...(options.type !== undefined ? { type: options.type } : {}),
      ...(options.publishNotReadyAddresses !== undefined ? { publishNotReadyAddresses: options.publishNotReadyAddresses } : {}),
    },
  };
}
