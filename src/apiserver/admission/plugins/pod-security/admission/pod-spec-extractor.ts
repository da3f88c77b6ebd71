/**
 * Where a pod spec lives in each kind that carries one (upstream's
 * DefaultPodSpecExtractor): the pod itself, or a workload's pod template.
 */
import type { KubeObject } from '../../../../../machinery/meta.js';
import type { PodMetaView, PodSpecView } from '../policy/pod-view.js';

/** group/resource of every kind with a pod template that PodSecurity warns and audits on. */
const WORKLOAD_RESOURCES: ReadonlySet<string> = new Set([
  '/replicationcontrollers',
  '/podtemplates',
  'apps/replicasets',
  'apps/deployments',
  'apps/statefulsets',
  'apps/daemonsets',
  'batch/jobs',
  'batch/cronjobs',
]);

export const isWorkloadResource = (group: string, resource: string): boolean => WORKLOAD_RESOURCES.has(`${group}/${resource}`);

export interface ExtractedPodSpec {
  readonly meta: PodMetaView;
  readonly spec: PodSpecView;
}

interface TemplateView {
  readonly metadata?: PodMetaView | null;
  readonly spec?: PodSpecView | null;
}

const asRecord = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function fromTemplate(template: unknown): ExtractedPodSpec | undefined {
  const t = asRecord(template) as TemplateView | undefined;
  if (t === undefined) return undefined;
  return { meta: t.metadata ?? {}, spec: t.spec ?? {} };
}

/** The pod metadata and spec to evaluate; undefined when the object has none (a ReplicationController without a template). */
export function extractPodSpec(group: string, resource: string, object: KubeObject): ExtractedPodSpec | undefined {
  const spec = asRecord(object['spec']);
  switch (`${group}/${resource}`) {
    case '/pods':
      return { meta: object.metadata, spec: (spec ?? {}) as PodSpecView };
    case '/podtemplates':
      return fromTemplate(object['template']);
    case 'batch/cronjobs':
      return fromTemplate(asRecord(asRecord(spec?.['jobTemplate'])?.['spec'])?.['template']);
    default:
      return fromTemplate(spec?.['template']);
  }
}
