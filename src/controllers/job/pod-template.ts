/**
 * The pod a Job creates (upstream's pod control with the Job as controller
 * owner): the Job's template, its tracking finalizer, generateName
 * `<job>-` (`<job>-<index>-` for Indexed Jobs), and for Indexed Jobs the
 * completion index as annotation, label and JOB_COMPLETION_INDEX env var,
 * with hostname `<job>-<index>`.
 */
import { deepCopy } from '../../machinery/meta.js';
import {
  JOB_COMPLETION_INDEX_ANNOTATION,
  JOB_COMPLETION_INDEX_ENV,
  JOB_COMPLETION_INDEX_LABEL,
  JOB_TRACKING_FINALIZER,
  type JobObject,
  type PodObject,
} from './job-model.js';

export function podForJob(job: JobObject, index?: number): PodObject {
  const template = deepCopy(job.spec?.template ?? {});
  const name = job.metadata.name ?? '';
  const labels: Record<string, string> = { ...(template.metadata?.labels ?? {}) };
  const annotations: Record<string, string> = { ...(template.metadata?.annotations ?? {}) };
  const spec = template.spec ?? { containers: [] };
  if (index !== undefined) {
    annotations[JOB_COMPLETION_INDEX_ANNOTATION] = String(index);
    labels[JOB_COMPLETION_INDEX_LABEL] = String(index);
    const env = { name: JOB_COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX_ANNOTATION}']` } } };
    for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
      if (!(container.env ?? []).some((e) => e.name === JOB_COMPLETION_INDEX_ENV)) container.env = [...(container.env ?? []), env];
    }
    if ((spec.hostname ?? '') === '') spec.hostname = `${name}-${index}`;
  }
  const pod: PodObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: index === undefined ? `${name}-` : `${name}-${index}-`,
      namespace: job.metadata.namespace ?? '',
      labels,
      finalizers: [JOB_TRACKING_FINALIZER],
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name, uid: job.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec,
  };
  if (Object.keys(annotations).length > 0) pod.metadata.annotations = annotations;
  return pod;
}
