/**
 * Test doubles for scheduler plugins: a snapshot (SharedLister) over given
 * NodeInfos, informers over fixed objects, and a Handle that offers only
 * those two (anything else throws when touched). Also small builders for
 * nodes, pods and NodeInfos.
 */
import type { InformerFactory, SharedIndexInformer } from '../../../../client/cache/interfaces.js';
import { newIndexer } from '../../../../client/cache/indexer.js';
import type { ResourceRef } from '../../../../client/rest/interface.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { Handle, NodeInfoLister, SharedLister } from '../../../framework/interfaces.js';
import { NodeInfo } from '../../../framework/node-info.js';
import type { Node, Pod } from '../../../framework/types.js';

export function fakeSnapshot(nodes: readonly NodeInfo[]): SharedLister {
  const lister: NodeInfoLister = {
    list: () => nodes,
    havePodsWithAffinityList: () => nodes.filter((n) => n.podsWithAffinity.length > 0),
    havePodsWithRequiredAntiAffinityList: () => nodes.filter((n) => n.podsWithRequiredAntiAffinity.length > 0),
    get: (name) => nodes.find((n) => n.name === name),
  };
  return { nodeInfos: () => lister };
}

/** Informers whose indexers hold fixed objects, by resource plural (`namespaces`, `services`, …). */
export function fakeInformers(objects: Readonly<Record<string, readonly KubeObject[]>> = {}): InformerFactory & { readonly requested: string[] } {
  const informers = new Map<string, SharedIndexInformer>();
  const requested: string[] = [];
  return {
    requested,
    informerFor<T extends KubeObject = KubeObject>(ref: ResourceRef): SharedIndexInformer<T> {
      let informer = informers.get(ref.resource);
      if (informer === undefined) {
        requested.push(ref.resource);
        const indexer = newIndexer();
        for (const o of objects[ref.resource] ?? []) indexer.upsert(o);
        informer = {
          indexer,
          addEventHandler: () => ({ remove: () => undefined }),
          hasSynced: true,
          synced: Promise.resolve(),
          lastSyncResourceVersion: '1',
        };
        informers.set(ref.resource, informer);
      }
      return informer as unknown as SharedIndexInformer<T>;
    },
    start: () => undefined,
    waitForCacheSync: () => Promise.resolve(),
    stop: () => undefined,
  };
}

function unavailable<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      throw new Error(`${name}.${String(property)} is not available in the fake handle`);
    },
  });
}

export interface FakeHandleOptions {
  readonly nodes?: readonly NodeInfo[];
  readonly objects?: Readonly<Record<string, readonly KubeObject[]>>;
}

export function fakeHandle(options: FakeHandleOptions = {}): Handle & { readonly informers: ReturnType<typeof fakeInformers> } {
  return {
    snapshot: fakeSnapshot(options.nodes ?? []),
    informers: fakeInformers(options.objects),
    client: unavailable('client'),
    events: unavailable('events'),
    nominator: unavailable('nominator'),
    logger: unavailable('logger'),
    framework: unavailable('framework'),
    getWaitingPod: () => undefined,
  };
}

export function makeNode(name: string, labels: Record<string, string> = {}, spec: Node['spec'] = {}): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `node-${name}`, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec };
}

let podCounter = 0;

export interface PodOptions {
  readonly name?: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly nodeName?: string;
  readonly spec?: Omit<NonNullable<Pod['spec']>, 'containers'>;
  readonly deleting?: boolean;
}

export function makePod(options: PodOptions = {}): Pod {
  const name = options.name ?? `pod-${++podCounter}`;
  const namespace = options.namespace ?? 'default';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `uid-${namespace}-${name}`,
      ...(options.labels === undefined ? {} : { labels: options.labels }),
      ...(options.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...options.spec, ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }) },
  };
}

/** NodeInfos for the nodes, each holding the pods whose spec.nodeName names it. */
export function makeNodeInfos(nodes: readonly Node[], pods: readonly Pod[] = []): NodeInfo[] {
  return nodes.map((node) => {
    const info = new NodeInfo(...pods.filter((p) => p.spec?.nodeName === node.metadata.name));
    info.setNode(node);
    return info;
  });
}
