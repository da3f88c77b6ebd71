/**
 * Empties a terminating namespace and then releases it (upstream's
 * NamespacedResourcesDeleter): marks it Terminating, deletes every namespaced
 * object in it (pods first, as upstream's OrderedNamespaceDeletion does),
 * reports what remains in status.conditions, and once nothing remains
 * removes `kubernetes` from spec.finalizers through the finalize subresource,
 * after which the API server deletes the namespace.
 *
 * The Client contract has no deletecollection: each resource is listed and
 * its objects deleted one by one (upstream's fallback, deleteEachItem), with
 * background propagation so the garbage collector never orphans them.
 */
import type { Client, ResourceRef } from '../../client/rest/interface.js';
import { NAMESPACES, PODS } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { deepCopy } from '../../machinery/meta.js';
import { isMethodNotAllowed, isNotFound } from '../../machinery/status.js';
import { failureConditions, updateConditions, type NamespaceCondition } from './conditions.js';

/** Upstream's finalizer token of the namespace controller. */
export const KUBERNETES_FINALIZER = 'kubernetes';
/** Assumed time for a remaining object's finalizers to finish (upstream's finalizerEstimateSeconds). */
const FINALIZER_ESTIMATE_SECONDS = 15;

interface NamespaceObject extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

interface PodFields {
  spec?: { terminationGracePeriodSeconds?: number };
  status?: { phase?: string };
}

/** Content still there after a pass: try again after about estimateSeconds (the controller waits estimate/2 + 1 s). */
export class ResourcesRemainingError extends Error {
  override readonly name = 'ResourcesRemainingError';
  constructor(readonly estimateSeconds: number) {
    super(`some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
  }
}

interface ResourcePass {
  readonly estimate: number;
  readonly remaining: number;
  readonly finalizers: ReadonlyMap<string, number>;
  readonly error?: string;
}

export interface NamespaceDeleterOptions {
  readonly client: Client;
  /** The namespaced resources to empty (discovery). */
  readonly resources: readonly ResourceRef[];
  readonly now?: () => Date;
}

export class NamespaceDeleter {
  private readonly client: Client;
  private readonly resources: readonly ResourceRef[];
  private readonly now: () => Date;

  constructor(options: NamespaceDeleterOptions) {
    this.client = options.client;
    this.resources = options.resources;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * One pass over namespace `name`. Resolves when it is released (or gone,
   * or not terminating); throws ResourcesRemainingError while content remains
   * and any other error when a step failed.
   */
  async delete(name: string): Promise<void> {
    const namespaces = this.client.resource<NamespaceObject>(NAMESPACES);
    let ns: NamespaceObject;
    try {
      ns = await namespaces.get(name);
    } catch (e: unknown) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (ns.metadata.deletionTimestamp === undefined) return;
    if (ns.status?.phase !== 'Terminating') {
      const marked = deepCopy(ns);
      marked.status = { ...(marked.status ?? {}), phase: 'Terminating' };
      try {
        ns = await namespaces.updateStatus(marked);
      } catch (e: unknown) {
        if (isNotFound(e)) return;
        throw e;
      }
    }
    const estimate = await this.deleteAllContent(ns);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);
    await this.finalize(ns);
  }

  /** Delete everything in the namespace; returns an estimate (seconds) of how long what remains will take. Records the conditions. */
  private async deleteAllContent(ns: NamespaceObject): Promise<number> {
    const name = ns.metadata.name ?? '';
    const deletedAt = Date.parse(ns.metadata.deletionTimestamp ?? '');
    const errors: string[] = [];
    const remainingByResource = new Map<string, number>();
    const remainingByFinalizer = new Map<string, number>();
    let estimate = 0;
    const account = (ref: ResourceRef, pass: ResourcePass): void => {
      if (pass.error !== undefined) errors.push(pass.error);
      estimate = Math.max(estimate, pass.estimate);
      if (pass.remaining > 0) {
        remainingByResource.set(`${ref.resource}.${ref.group}`, pass.remaining);
        for (const [f, n] of pass.finalizers) remainingByFinalizer.set(f, (remainingByFinalizer.get(f) ?? 0) + n);
      }
    };
    // Pods first: nothing a running pod relies on (policies, secrets) goes while pods remain.
    const pods = this.resources.find((r) => r.group === PODS.group && r.resource === PODS.resource);
    if (pods !== undefined) account(pods, await this.deleteResource(pods, name, deletedAt));
    if (pods === undefined || !remainingByResource.has(`${pods.resource}.${pods.group}`)) {
      for (const ref of this.resources) if (ref !== pods) account(ref, await this.deleteResource(ref, name, deletedAt));
    }
    await this.recordConditions(ns, { contentErrors: errors, remainingByResource, remainingByFinalizer });
    if (errors.length > 0) throw new Error(`failed to delete the content of namespace ${name}: ${errors.sort().join('; ')}`);
    return estimate;
  }

  private async deleteResource(ref: ResourceRef, namespace: string, deletedAt: number): Promise<ResourcePass> {
    const resource = this.client.resource(ref);
    const none = new Map<string, number>();
    let estimate = 0;
    try {
      estimate = await this.gracefulEstimate(ref, namespace, deletedAt);
      const items = (await resource.list({ namespace })).items;
      for (const item of items) {
        try {
          await resource.delete(item.metadata.name ?? '', { namespace, propagationPolicy: 'Background' });
        } catch (e: unknown) {
          if (!isNotFound(e) && !isMethodNotAllowed(e)) throw e;
        }
      }
      const left = (await resource.list({ namespace })).items;
      if (left.length === 0) return { estimate: 0, remaining: 0, finalizers: none };
      const finalizers = new Map<string, number>();
      for (const item of left) for (const f of item.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      if (estimate > 0) return { estimate, remaining: left.length, finalizers };
      // Finalizers are normal: give whoever holds them time.
      if (finalizers.size > 0) return { estimate: FINALIZER_ESTIMATE_SECONDS, remaining: left.length, finalizers };
      return {
        estimate,
        remaining: left.length,
        finalizers,
        error: `unexpected items still remain in namespace: ${namespace} for gvr: ${ref.group}/${ref.version}, Resource=${ref.resource}`,
      };
    } catch (e: unknown) {
      return { estimate, remaining: 0, finalizers: none, error: e instanceof Error ? e.message : String(e) };
    }
  }

  /** For pods: the longest grace period of a pod still running, unless the namespace has been terminating longer than that. */
  private async gracefulEstimate(ref: ResourceRef, namespace: string, deletedAt: number): Promise<number> {
    if (ref.group !== PODS.group || ref.resource !== PODS.resource) return 0;
    const pods = (await this.client.resource<KubeObject & PodFields>(ref).list({ namespace })).items;
    let estimate = 0;
    for (const pod of pods) {
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      estimate = Math.max(estimate, pod.spec?.terminationGracePeriodSeconds ?? 0);
    }
    const elapsedSeconds = (this.now().getTime() - deletedAt) / 1000;
    return elapsedSeconds >= estimate ? 0 : estimate;
  }

  private async recordConditions(
    ns: NamespaceObject,
    report: { contentErrors: string[]; remainingByResource: Map<string, number>; remainingByFinalizer: Map<string, number> },
  ): Promise<void> {
    const now = this.now();
    const { conditions, changed } = updateConditions(ns.status?.conditions ?? [], failureConditions(report, now), now);
    if (!changed) return;
    const next = deepCopy(ns);
    next.status = { ...(next.status ?? {}), conditions };
    try {
      const updated = await this.client.resource<NamespaceObject>(NAMESPACES).updateStatus(next);
      ns.metadata = updated.metadata;
      ns.status = updated.status ?? {};
    } catch {
      // Upstream only logs a failed condition update: the next pass writes them again.
    }
  }

  /** Remove our token from spec.finalizers through /finalize (the API server deletes the namespace when none remain). */
  private async finalize(ns: NamespaceObject): Promise<void> {
    const finalizers = [...new Set((ns.spec?.finalizers ?? []).filter((f) => f !== KUBERNETES_FINALIZER))].sort();
    const body: NamespaceObject = { apiVersion: 'v1', kind: 'Namespace', metadata: deepCopy(ns.metadata), spec: { ...(ns.spec ?? {}), finalizers } };
    try {
      await this.client.resource(NAMESPACES).updateSubresource(ns.metadata.name ?? '', 'finalize', body);
    } catch (e: unknown) {
      if (isNotFound(e)) return;
      throw e;
    }
  }
}
