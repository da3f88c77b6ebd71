/**
 * namespaceSelector and objectSelector, as upstream's namespace and object
 * matchers: a cluster-scoped request (other than for a Namespace) always
 * passes the namespace selector; a Namespace's own create or update is judged
 * by the labels it is being given; the object selector passes when the new or
 * the old object matches.
 */
import type { LabelSelector as LabelSelectorObject } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { labelSelectorFromObject, type LabelSelector } from '../../../../machinery/selectors/label-selector.js';
import type { AdmissionAttributes } from '../../interfaces.js';

const parsed = new WeakMap<LabelSelectorObject, LabelSelector>();

/** A selector object, parsed once per configuration object (they are replaced, never changed, when the watch delivers). */
export function selectorOf(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (selector === undefined || selector === null) return labelSelectorFromObject({});
  let s = parsed.get(selector);
  if (s === undefined) {
    s = labelSelectorFromObject(selector);
    parsed.set(selector, s);
  }
  return s;
}

export type NamespaceLabels = (name: string) => Promise<Record<string, string> | undefined>;

export async function namespaceSelectorMatches(selector: LabelSelector, attributes: AdmissionAttributes, namespaceLabels: NamespaceLabels): Promise<boolean> {
  const isNamespace = attributes.resource.group === '' && attributes.resource.resource === 'namespaces';
  if (attributes.namespace === '' && !isNamespace) return true;
  if (selector.empty()) return true;
  if (isNamespace && (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE') && attributes.object !== undefined) {
    return selector.matches(labelsOf(attributes.object));
  }
  const name = isNamespace ? attributes.name : attributes.namespace;
  const labels = await namespaceLabels(name);
  if (labels === undefined) throw new Error(`namespace "${name}" not found`);
  return selector.matches(labels);
}

export function objectSelectorMatches(selector: LabelSelector, attributes: Pick<AdmissionAttributes, 'object' | 'oldObject'>): boolean {
  if (selector.empty()) return true;
  return [attributes.object, attributes.oldObject].some((o) => o !== undefined && selector.matches(labelsOf(o)));
}

function labelsOf(object: KubeObject): Record<string, string> {
  return (object.metadata?.labels ?? {}) as Record<string, string>;
}
