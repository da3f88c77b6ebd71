/**
 * The template a DaemonSet's new pods are made from (upstream's
 * CreatePodTemplate), and whether a pod was made from the current one
 * (IsPodUpdated): the automatic tolerations, the controller-revision-hash
 * label, and the deprecated pod-template-generation label when the DaemonSet
 * still carries the deprecated generation annotation.
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { deepCopy } from '../../machinery/meta.js';
import { POD_REVISION_LABEL } from '../history/controller-revision.js';
import { affinityForNode } from './node-binding.js';
import { addDaemonPodTolerations } from './tolerations.js';
import type { DaemonSetObject, PodObject } from './types.js';

/** The annotation old API servers kept the template generation in (apps/v1 DeprecatedTemplateGeneration). */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
/** The pod label that generation went to (extensions/v1beta1 DaemonSetTemplateGenerationKey). */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/** The template generation, when the annotation holds a number. */
export function templateGeneration(ds: DaemonSetObject): string | undefined {
  const value = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return value !== undefined && /^-?\d+$/.test(value) ? value : undefined;
}

/** The template for a new pod on the node: tolerations, labels, and node affinity to exactly that node. */
export function daemonPodTemplate(ds: DaemonSetObject, hash: string, nodeName: string): PodTemplateSpec {
  const template = deepCopy(ds.spec?.template ?? {});
  const spec = (template.spec ??= { containers: [] });
  addDaemonPodTolerations(spec);
  const labels = ((template.metadata ??= {}).labels ??= {});
  const generation = templateGeneration(ds);
  if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = generation;
  if (hash !== '') labels[POD_REVISION_LABEL] = hash;
  spec.affinity = affinityForNode(spec.affinity, nodeName);
  return template;
}

/** The pod carries the current hash (or the current deprecated template generation). */
export function isPodUpdated(pod: PodObject, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  return (hash !== '' && labels[POD_REVISION_LABEL] === hash) || (generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation);
}
