/**
 * Writing a StatefulSet's pods (upstream's StatefulPodControl), each write
 * recorded as upstream words it: SuccessfulCreate "create Pod web-0 in
 * StatefulSet web successful", FailedCreate "create Pod web-0 in StatefulSet
 * web failed error: …", and the same for delete and update.
 *
 * A create that finds the pod already there (our own earlier create, not yet
 * in the cache) records nothing and is not an error: the watch will bring
 * it. A delete names the pod's uid as a precondition, so that a stale cache
 * never deletes a newer pod of the same name; a pod already gone (or
 * replaced) is not an error.
 */
import type { EventRecorder } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { PODS } from '../../client/rest/resources.js';
import { deepCopy } from '../../machinery/meta.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../machinery/status.js';
import { updateIdentity, updateStorage } from './identity.js';
import type { PodObject, StatefulSetObject } from './types.js';

export interface StatefulPodControl {
  /** Resolves true when the pod was created, false when it already existed. */
  createPod(set: StatefulSetObject, pod: PodObject): Promise<boolean>;
  deletePod(set: StatefulSetObject, pod: PodObject): Promise<void>;
  /** Write the pod back with its identity and storage repaired (one retry on a conflict with a fresh read). */
  fixIdentity(set: StatefulSetObject, pod: PodObject): Promise<void>;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export function newStatefulPodControl(client: Client, recorder: EventRecorder): StatefulPodControl {
  const pods = client.resource<PodObject>(PODS);
  const record = (verb: 'create' | 'delete' | 'update', set: StatefulSetObject, pod: PodObject, error?: unknown): void => {
    const Verb = `${verb[0]!.toUpperCase()}${verb.slice(1)}`;
    const subject = `${verb} Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''}`;
    if (error === undefined) recorder.event(set, 'Normal', `Successful${Verb}`, `${subject} successful`);
    else recorder.event(set, 'Warning', `Failed${Verb}`, `${subject} failed error: ${messageOf(error)}`);
  };
  return {
    async createPod(set, pod) {
      try {
        await pods.create(pod, { namespace: set.metadata.namespace ?? '' });
      } catch (e: unknown) {
        if (isAlreadyExists(e)) return false;
        record('create', set, pod, e);
        throw e;
      }
      record('create', set, pod);
      return true;
    },
    async deletePod(set, pod) {
      try {
        await pods.delete(pod.metadata.name ?? '', { namespace: set.metadata.namespace ?? '', preconditions: { uid: pod.metadata.uid ?? '' } });
      } catch (e: unknown) {
        // Gone, or replaced by a pod of another uid (the precondition failed): the pod we meant is no more.
        if (isNotFound(e) || isConflict(e)) return;
        record('delete', set, pod, e);
        throw e;
      }
      record('delete', set, pod);
    },
    async fixIdentity(set, pod) {
      const namespace = set.metadata.namespace ?? '';
      let current = deepCopy(pod);
      for (let attempt = 0; ; attempt++) {
        updateIdentity(set, current);
        updateStorage(set, current);
        try {
          await pods.update(current, { namespace });
          record('update', set, current);
          return;
        } catch (e: unknown) {
          if (!isConflict(e) || attempt >= 1) {
            record('update', set, current, e);
            throw e;
          }
          current = await pods.get(pod.metadata.name ?? '', { namespace });
        }
      }
    },
  };
}
