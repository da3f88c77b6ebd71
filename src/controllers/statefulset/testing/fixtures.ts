/** Builders of StatefulSets and their pods for the StatefulSet controller's unit tests. */
import { POD_REVISION_LABEL } from '../../history/controller-revision.js';
import type { PodObject, StatefulSetObject } from '../types.js';

export function statefulSet(spec: Partial<NonNullable<StatefulSetObject['spec']>> = {}, name = 'web'): StatefulSetObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'ns', uid: 'sts-uid', generation: 1 },
    spec: {
      replicas: 3,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      ...spec,
    },
  };
}

export interface MemberOptions {
  readonly revision?: string;
  readonly ready?: boolean;
  readonly phase?: string;
  readonly deleting?: boolean;
}

/** Pod `<set>-<ordinal>` with its identity, Running and Ready unless told otherwise. */
export function member(set: StatefulSetObject, ordinal: number, options: MemberOptions = {}): PodObject {
  const name = `${set.metadata.name ?? ''}-${ordinal}`;
  const pod: PodObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      labels: {
        app: 'web',
        'statefulset.kubernetes.io/pod-name': name,
        'apps.kubernetes.io/pod-index': String(ordinal),
        [POD_REVISION_LABEL]: options.revision ?? 'web-r1',
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.metadata.name ?? '', uid: 'sts-uid', controller: true }],
    },
    spec: { containers: [{ name: 'c', image: 'nginx:1' }], hostname: name, subdomain: 'web' },
    status: {
      phase: options.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: (options.ready ?? true) ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    },
  };
  if (options.deleting === true) pod.metadata.deletionTimestamp = '2026-01-01T00:01:00Z';
  return pod;
}
