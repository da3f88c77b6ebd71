/**
 * POST pods/NAME/binding: assign a pending pod to a node, as the scheduler
 * does (upstream's BindingREST). The pod's spec.nodeName is set once and
 * never changes: a second binding is a 409 Conflict
 * (`pod web is already assigned to node "n1"`). The pod also gets the
 * binding's annotations and a PodScheduled=True condition. The answer is a
 * Success Status with code 201.
 */
import type { Binding, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { validatePodBinding } from '../../../../api/core/v1/validation.js';
import { formatFieldErrors } from '../../../../machinery/field-errors.js';
import { formatTime, type KubeObject } from '../../../../machinery/meta.js';
import { badRequest, conflict, notFound, StatusError } from '../../../../machinery/status.js';
import { readObject } from '../../../endpoints/decode-object.js';
import { negotiateOutput } from '../../../endpoints/negotiation.js';
import { parseDryRun } from '../../../endpoints/query.js';
import type { VerbHandler } from '../../../endpoints/target.js';
import { writeObject } from '../../../server/response.js';
import type { Strategy } from '../../generic/strategy.js';

const BINDING_RESOURCE = { group: '', resource: 'pods/binding' };

/** The pod seen by a binding: nothing is reset or validated as a user's update would be (upstream writes storage directly). */
function bindingStrategy(base: Strategy): Strategy {
  return { ...base, prepareForUpdate: () => {}, validateUpdate: () => [] };
}

/** Upstream's UpdatePodCondition: set a condition, keeping its transition time when its status does not change. */
export function setPodCondition(pod: Pod, condition: PodCondition): void {
  const writable = pod as { status?: { conditions?: PodCondition[] } };
  const status = (writable.status ??= {});
  const conditions = (status.conditions ??= []);
  const now = formatTime(new Date());
  const index = conditions.findIndex((c: PodCondition) => c.type === condition.type);
  const next: PodCondition = { lastProbeTime: null as unknown as string, lastTransitionTime: now, ...condition };
  if (index < 0) conditions.push(next);
  else {
    const old = conditions[index]!;
    if (old.status === next.status && old.lastTransitionTime !== undefined) next.lastTransitionTime = old.lastTransitionTime;
    conditions[index] = next;
  }
}

const createBinding: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const dryRun = parseDryRun(ctx.query, 'CreateOptions');
  const body = await readObject(ctx, { group: '', version: 'v1', kind: 'Binding' });
  const binding = body as unknown as Binding;
  const ns = body.metadata.namespace;
  if (ns !== undefined && ns !== '' && ns !== t.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  // POST …/pods/NAME/binding names the pod in the URL; POST …/bindings (the older form) in the body.
  const podName = t.name === '' ? (body.metadata.name ?? '') : t.name;
  if ((body.metadata.name ?? '') !== podName) throw badRequest('name in URL does not match name in Binding object');
  const errors = validatePodBinding(binding);
  // Upstream returns these as a plain error, which the API server answers with a 500 of unknown reason.
  if (errors.length > 0) throw new StatusError({ code: 500, reason: '', message: formatFieldErrors(errors) });
  const node = binding.target.name ?? '';
  const store = t.store.withStrategy(bindingStrategy(t.store.strategy));
  await store.update(
    t.namespace,
    podName,
    (current: KubeObject | undefined) => {
      if (current === undefined) throw notFound({ group: '', resource: 'pods' }, podName);
      const uid = body.metadata.uid ?? '';
      if (uid !== '' && uid !== current.metadata.uid) {
        throw conflict(BINDING_RESOURCE, podName, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
      }
      const rv = body.metadata.resourceVersion ?? '';
      if (rv !== '' && rv !== current.metadata.resourceVersion) {
        throw conflict(BINDING_RESOURCE, podName, `Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`);
      }
      const pod = current as KubeObject & Pod;
      if (current.metadata.deletionTimestamp !== undefined) {
        throw conflict(BINDING_RESOURCE, podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
      }
      const assigned = pod.spec?.nodeName ?? '';
      if (assigned !== '') throw conflict(BINDING_RESOURCE, podName, `pod ${podName} is already assigned to node "${assigned}"`);
      if ((pod.spec?.schedulingGates ?? []).length > 0) {
        throw conflict(BINDING_RESOURCE, podName, `pod ${podName} has non-empty .spec.schedulingGates`);
      }
      pod.spec = { ...(pod.spec ?? { containers: [] }), nodeName: node };
      const annotations = body.metadata.annotations;
      if (annotations !== undefined && Object.keys(annotations).length > 0) {
        current.metadata.annotations = { ...(current.metadata.annotations ?? {}), ...annotations };
      }
      setPodCondition(pod, { type: 'PodScheduled', status: 'True' });
      return current;
    },
    { dryRun, allowCreate: false },
  );
  writeObject(ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, format);
};

export const bindingHandlers: Readonly<Record<string, VerbHandler>> = { create: createBinding };
