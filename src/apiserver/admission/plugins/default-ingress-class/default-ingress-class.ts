/**
 * DefaultIngressClass (upstream's plugin, on by default): a new Ingress that
 * names no class (neither spec.ingressClassName nor the legacy
 * kubernetes.io/ingress.class annotation) gets the IngressClass annotated
 * ingressclass.kubernetes.io/is-default-class: "true"; when several are, the
 * newest wins (ties: the first name), as upstream chooses since 1.28. With no
 * default class the Ingress is left as it is.
 */
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { AdmissionDependencies, MutatingAdmissionPlugin } from '../../interfaces.js';

export const NAME = 'DefaultIngressClass';
export const ANNOTATION_IS_DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';
const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class';

/** The default class among `classes`, or undefined. */
export function defaultIngressClass(classes: readonly IngressClass[]): IngressClass | undefined {
  const created = (c: IngressClass): number => Date.parse(c.metadata?.creationTimestamp ?? '') || 0;
  const defaults = classes.filter((c) => c.metadata?.annotations?.[ANNOTATION_IS_DEFAULT_INGRESS_CLASS] === 'true');
  defaults.sort((a, b) => created(b) - created(a) || ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  return defaults[0];
}

export function newDefaultIngressClass(deps: AdmissionDependencies): MutatingAdmissionPlugin {
  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE',
    async admit(a) {
      if (a.resource.group !== 'networking.k8s.io' || a.resource.resource !== 'ingresses' || a.subresource !== '' || a.object === undefined) return;
      const ingress = a.object as KubeObject & Ingress;
      if (ingress.spec?.ingressClassName !== undefined && ingress.spec.ingressClassName !== null) return;
      if (ingress.metadata.annotations?.[ANNOTATION_INGRESS_CLASS] !== undefined) return;
      const store = deps.stores('networking.k8s.io', 'v1', 'ingressclasses');
      if (store === undefined) return;
      // From the watch cache, as upstream reads its lister.
      const list = await store.list(undefined, { resourceVersion: '0' });
      const found = defaultIngressClass(list.items as IngressClass[]);
      if (found === undefined) return;
      ingress.spec = { ...ingress.spec, ingressClassName: found.metadata?.name ?? '' };
    },
  };
}
