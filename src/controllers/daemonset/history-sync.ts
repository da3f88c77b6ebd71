/**
 * Keeping a DaemonSet's ControllerRevisions (upstream's constructHistory and
 * cleanupHistory): claim the revisions it selects, find the one holding the
 * current template (creating it, or giving it the newest number), and delete
 * the oldest revisions no pod uses beyond revisionHistoryLimit.
 */
import { deepCopy } from '../../machinery/meta.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { isAlreadyExists, isNotFound } from '../../machinery/status.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import { NAMESPACE_INDEX } from '../../client/cache/interfaces.js';
import type { Client } from '../../client/rest/interface.js';
import { CONTROLLER_REVISIONS, DAEMON_SETS, PODS } from '../../client/rest/resources.js';
import { claimObjects, recheckOwner } from '../util/controller-ref.js';
import { newControllerRef } from '../util/pod-control.js';
import { POD_REVISION_LABEL, revisionMatchesTemplate, sortControllerRevisions, type ControllerRevisionObject } from '../history/controller-revision.js';
import { daemonSetRevision } from './revisions.js';
import type { DaemonSetObject, PodObject } from './types.js';

export const DAEMON_SET_KIND = { apiVersion: 'apps/v1', kind: 'DaemonSet' } as const;

export interface DaemonSetHistory {
  readonly current: ControllerRevisionObject;
  readonly old: ControllerRevisionObject[];
}

/** The revisions the DaemonSet controls, after adopting matching orphans and releasing ones that stopped matching. */
export async function claimRevisions(client: Client, revisions: Indexer<ControllerRevisionObject>, ds: DaemonSetObject): Promise<ControllerRevisionObject[]> {
  const namespace = ds.metadata.namespace ?? '';
  const dsClient = client.resource<DaemonSetObject>(DAEMON_SETS);
  return claimObjects(revisions.byIndex(NAMESPACE_INDEX, namespace), {
    owner: ds,
    controllerRef: newControllerRef(ds, DAEMON_SET_KIND),
    selector: labelSelectorFromObject(ds.spec?.selector),
    client: client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS),
    canAdopt: recheckOwner(() => dsClient.get(ds.metadata.name ?? '', { namespace }), ds),
  });
}

/** Create the revision of the current template; on a name taken by other data, raise status.collisionCount and retry later. */
async function snapshot(client: Client, ds: DaemonSetObject, revision: number): Promise<ControllerRevisionObject> {
  const namespace = ds.metadata.namespace ?? '';
  const revisionsClient = client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS);
  const wanted = daemonSetRevision(ds, revision, newControllerRef(ds, DAEMON_SET_KIND));
  try {
    return await revisionsClient.create(wanted, { namespace });
  } catch (e: unknown) {
    if (!isAlreadyExists(e)) throw e;
    const existing = await revisionsClient.get(wanted.metadata.name ?? '', { namespace });
    if (revisionMatchesTemplate(ds, existing)) return existing;
    const dsClient = client.resource<DaemonSetObject>(DAEMON_SETS);
    const fresh = await dsClient.get(ds.metadata.name ?? '', { namespace });
    if ((fresh.status?.collisionCount ?? undefined) !== (ds.status?.collisionCount ?? undefined)) {
      throw new Error(`found a stale collision count (${ds.status?.collisionCount ?? 'nil'}, expected ${fresh.status?.collisionCount ?? 'nil'}) of DaemonSet "${ds.metadata.name ?? ''}" while processing; will retry until it is updated`, { cause: e });
    }
    const bumped = deepCopy(fresh);
    Object.assign(bumped, { status: { ...(bumped.status ?? {}), collisionCount: (fresh.status?.collisionCount ?? 0) + 1 } });
    await dsClient.updateStatus(bumped, { namespace });
    throw new Error(`hash collision for DaemonSet "${ds.metadata.name ?? ''}": collisionCount raised to ${(fresh.status?.collisionCount ?? 0) + 1}`, { cause: e });
  }
}

/**
 * The current revision and the old ones. Revisions without the hash label
 * get it (their name); duplicates of the current one are folded into the
 * newest, relabelling their pods first; the current one gets the next number
 * when an old one has a higher.
 */
export async function constructHistory(options: {
  readonly client: Client;
  readonly ds: DaemonSetObject;
  readonly revisions: readonly ControllerRevisionObject[];
  readonly pods: readonly PodObject[];
}): Promise<DaemonSetHistory> {
  const { client, ds } = options;
  const namespace = ds.metadata.namespace ?? '';
  const revisionsClient = client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS);
  const current: ControllerRevisionObject[] = [];
  const old: ControllerRevisionObject[] = [];
  for (let revision of options.revisions) {
    if (revision.metadata.labels?.[POD_REVISION_LABEL] === undefined) {
      const labelled = deepCopy(revision);
      (labelled.metadata.labels ??= {})[POD_REVISION_LABEL] = labelled.metadata.name ?? '';
      revision = await revisionsClient.update(labelled, { namespace });
    }
    (revisionMatchesTemplate(ds, revision) ? current : old).push(revision);
  }
  const nextNumber = old.reduce((max, r) => Math.max(max, r.revision), 0) + 1;
  if (current.length === 0) return { current: await snapshot(client, ds, nextNumber), old };

  const sorted = sortControllerRevisions(current);
  let keep = sorted[sorted.length - 1]!;
  const keepHash = keep.metadata.labels?.[POD_REVISION_LABEL] ?? '';
  const duplicates = sorted.slice(0, -1);
  if (duplicates.length > 0) {
    const duplicateHashes = new Set(duplicates.map((d) => d.metadata.labels?.[POD_REVISION_LABEL] ?? ''));
    const podsClient = client.resource<PodObject>(PODS);
    for (const pod of options.pods) {
      const hash = pod.metadata.labels?.[POD_REVISION_LABEL];
      if (hash !== undefined && hash !== keepHash && duplicateHashes.has(hash)) {
        await podsClient.patch(pod.metadata.name ?? '', 'merge', { metadata: { labels: { [POD_REVISION_LABEL]: keepHash } } }, { namespace });
      }
    }
    for (const duplicate of duplicates) await deleteIgnoringNotFound(revisionsClient, duplicate);
  }
  if (keep.revision < nextNumber) {
    const renumbered = deepCopy(keep);
    renumbered.revision = nextNumber;
    keep = await revisionsClient.update(renumbered, { namespace });
  }
  return { current: keep, old };
}

async function deleteIgnoringNotFound(client: ReturnType<Client['resource']>, object: ControllerRevisionObject): Promise<void> {
  try {
    await client.delete(object.metadata.name ?? '', { namespace: object.metadata.namespace ?? '' });
  } catch (e: unknown) {
    if (!isNotFound(e)) throw e;
  }
}

/** Delete the oldest old revisions that no pod carries, until revisionHistoryLimit remain. */
export async function cleanupHistory(options: {
  readonly client: Client;
  readonly ds: DaemonSetObject;
  readonly old: readonly ControllerRevisionObject[];
  /** Every pod of the DaemonSet, deleted terminal ones included. */
  readonly pods: readonly PodObject[];
}): Promise<void> {
  let toKill = options.old.length - (options.ds.spec?.revisionHistoryLimit ?? 10);
  if (toKill <= 0) return;
  const liveHashes = new Set(options.pods.map((p) => p.metadata.labels?.[POD_REVISION_LABEL]).filter((h): h is string => !!h));
  const revisionsClient = options.client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS);
  for (const revision of [...options.old].sort((a, b) => a.revision - b.revision)) {
    if (toKill <= 0) break;
    if (liveHashes.has(revision.metadata.labels?.[POD_REVISION_LABEL] ?? '')) continue;
    await deleteIgnoringNotFound(revisionsClient, revision);
    toKill--;
  }
}
