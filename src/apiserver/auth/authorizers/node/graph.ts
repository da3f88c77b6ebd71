/**
 * The Node authorizer's graph (upstream's node.Graph): vertices are API
 * objects, and an edge from A to B means "whoever may read B may read A".
 * A pod bound to a node points at the node; the secrets, configmaps, service
 * account, PVCs and resource claims a pod names point at the pod; a bound PV
 * points at its claim and the secrets it names point at the PV; a
 * VolumeAttachment points at its node. A node may read an object when a path
 * leads from it to the node. Vertices left without any edge are dropped, so a
 * deleted pod takes its relationships with it.
 */
import type { PersistentVolume, Pod } from 'kubernetes-types/core/v1.js';
import { persistentVolumeSecretRefs, podConfigMapNames, podPersistentVolumeClaimNames, podResourceClaimNames, podSecretNames } from './pod-references.js';

export type VertexType = 'configmap' | 'node' | 'pod' | 'pvc' | 'pv' | 'resourceclaim' | 'resourceslice' | 'secret' | 'serviceaccount' | 'volumeattachment';

/** Upstream's names of the vertex types, as its messages print them. */
const TYPE_NAMES: Record<VertexType, string> = {
  configmap: 'configmap',
  node: 'node',
  pod: 'pod',
  pvc: 'pvc',
  pv: 'pv',
  resourceclaim: 'resourceclaim',
  resourceslice: 'resourceslice',
  secret: 'secret',
  serviceaccount: 'serviceAccount',
  volumeattachment: 'volumeattachment',
};

const vertexKey = (type: VertexType, namespace: string, name: string): string => `${type}\u0000${namespace}\u0000${name}`;

export interface PathResult {
  readonly found: boolean;
  /** Why not (upstream's wording, for logs and tests). */
  readonly error?: string;
}

export class NodeGraph {
  /** from → to */
  private readonly outEdges = new Map<string, Set<string>>();
  /** to → from */
  private readonly inEdges = new Map<string, Set<string>>();

  /** Record a pod (again): its node and what it names. A pod with no node is removed. */
  setPod(pod: Pod): void {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const podVertex = vertexKey('pod', namespace, name);
    this.removeVertex(podVertex);
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName === '') return;
    this.addEdge(podVertex, vertexKey('node', '', nodeName));
    const from = (type: VertexType, names: Iterable<string>): void => {
      for (const n of names) this.addEdge(vertexKey(type, namespace, n), podVertex);
    };
    const serviceAccount = pod.spec?.serviceAccountName ?? '';
    if (serviceAccount !== '') from('serviceaccount', [serviceAccount]);
    from('secret', podSecretNames(pod));
    from('configmap', podConfigMapNames(pod));
    from('pvc', podPersistentVolumeClaimNames(pod));
    from('resourceclaim', podResourceClaimNames(pod));
  }

  deletePod(namespace: string, name: string): void {
    this.removeVertex(vertexKey('pod', namespace, name));
  }

  /** Record a PV (again): bound to a claim, it points at the claim, and its secrets point at it. */
  setPersistentVolume(pv: PersistentVolume): void {
    const pvVertex = vertexKey('pv', '', pv.metadata?.name ?? '');
    this.removeVertex(pvVertex);
    const claim = pv.spec?.claimRef;
    if (claim?.name === undefined || claim.name === '') return;
    this.addEdge(pvVertex, vertexKey('pvc', claim.namespace ?? '', claim.name));
    for (const ref of persistentVolumeSecretRefs(pv)) this.addEdge(vertexKey('secret', ref.namespace, ref.name), pvVertex);
  }

  deletePersistentVolume(name: string): void {
    this.removeVertex(vertexKey('pv', '', name));
  }

  setVolumeAttachment(name: string, nodeName: string): void {
    const vertex = vertexKey('volumeattachment', '', name);
    this.removeVertex(vertex);
    if (nodeName !== '') this.addEdge(vertex, vertexKey('node', '', nodeName));
  }

  deleteVolumeAttachment(name: string): void {
    this.removeVertex(vertexKey('volumeattachment', '', name));
  }

  /** Is there a path from the object to the node? (upstream's hasPathFrom, with its error texts) */
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): PathResult {
    const nodeVertex = vertexKey('node', '', nodeName);
    const what = `${TYPE_NAMES[type]} ${namespace}/${name}`;
    if (!this.inEdges.has(nodeVertex)) return { found: false, error: `unknown node '${nodeName}' cannot get ${what}` };
    const start = vertexKey(type, namespace, name);
    if (!this.outEdges.has(start) && !this.inEdges.has(start)) return { found: false, error: `node '${nodeName}' cannot get unknown ${what}` };
    const seen = new Set<string>([start]);
    const stack = [start];
    while (stack.length > 0) {
      const at = stack.pop()!;
      for (const next of this.outEdges.get(at) ?? []) {
        if (next === nodeVertex) return { found: true };
        // Never walk through another node.
        if (seen.has(next) || next.startsWith('node\u0000')) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return { found: false, error: `node '${nodeName}' cannot get ${what}, no relationship to this object was found in the node authorizer graph` };
  }

  /** The number of vertices (for tests: nothing is left behind). */
  get size(): number {
    return new Set([...this.outEdges.keys(), ...this.inEdges.keys()]).size;
  }

  private addEdge(from: string, to: string): void {
    let out = this.outEdges.get(from);
    if (out === undefined) this.outEdges.set(from, (out = new Set()));
    out.add(to);
    let into = this.inEdges.get(to);
    if (into === undefined) this.inEdges.set(to, (into = new Set()));
    into.add(from);
  }

  /** Remove a vertex and its edges; a neighbour left with no edge at all is gone with them (vertices exist only through their edges). */
  private removeVertex(vertex: string): void {
    for (const to of this.outEdges.get(vertex) ?? []) {
      const into = this.inEdges.get(to);
      into?.delete(vertex);
      if (into !== undefined && into.size === 0) this.inEdges.delete(to);
    }
    for (const from of this.inEdges.get(vertex) ?? []) {
      const out = this.outEdges.get(from);
      out?.delete(vertex);
      if (out !== undefined && out.size === 0) this.outEdges.delete(from);
    }
    this.outEdges.delete(vertex);
    this.inEdges.delete(vertex);
  }
}
