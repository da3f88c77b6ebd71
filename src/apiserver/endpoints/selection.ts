/**
 * The predicate of a list, watch or deletecollection: `labelSelector` and
 * `fieldSelector`, checked against the fields the resource lets clients select
 * on (400 `field label not supported: …` for any other).
 */
import type { KubeObject } from '../../machinery/meta.js';
import { checkDefaultFieldSelectorFields, checkFieldSelectorFields, fieldSelectorFromSet, parseFieldSelector, type FieldSelector } from '../../machinery/selectors/field-selector.js';
import { badRequest } from '../../machinery/status.js';
import { parseLabelSelector, type LabelSelector } from '../../machinery/selectors/label-selector.js';
import type { Predicate } from '../registry/generic/object-storage.js';
import type { Target } from './target.js';

/** The predicate the query asks for, or undefined when it selects everything. */
export function selectionPredicate(query: URLSearchParams, target: Target): Predicate | undefined {
  const labelText = query.get('labelSelector') ?? '';
  const fieldText = query.get('fieldSelector') ?? '';
  const labels: LabelSelector | undefined = labelText.trim() === '' ? undefined : parseLabelSelector(labelText);
  let fields: FieldSelector | undefined = fieldText.trim() === '' ? undefined : parseFieldSelector(fieldText);
  if (target.name !== '') {
    // A watch of one object by the deprecated /watch/ path (upstream's ListResource with a name):
    // the name becomes the selector, and a selector may only repeat it.
    if (fields === undefined || fields.empty()) fields = fieldSelectorFromSet({ 'metadata.name': target.name });
    else if (fields.requiredValue('metadata.name') !== target.name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  const selectable = target.store.strategy.selectableFields;
  if (fields !== undefined) {
    fields = selectable === undefined ? checkDefaultFieldSelectorFields(fields) : checkFieldSelectorFields(fields, ['metadata.name', 'metadata.namespace', ...Object.keys(selectable)]);
  }
  const labelMatch = labels !== undefined && !labels.empty() ? labels : undefined;
  const fieldMatch = fields !== undefined && !fields.empty() ? fields : undefined;
  if (labelMatch === undefined && fieldMatch === undefined) return undefined;
  const wanted = fieldMatch === undefined ? [] : [...new Set(fieldMatch.requirements.map((r) => r.field))];
  return (object: KubeObject): boolean => {
    if (labelMatch !== undefined && !labelMatch.matches(object.metadata.labels)) return false;
    if (fieldMatch === undefined) return true;
    const values: Record<string, string> = {};
    for (const field of wanted) values[field] = fieldValue(object, field, selectable);
    return fieldMatch.matches(values);
  };
}

function fieldValue(object: KubeObject, field: string, selectable: Readonly<Record<string, (o: KubeObject) => string>> | undefined): string {
  if (field === 'metadata.name') return object.metadata.name ?? '';
  if (field === 'metadata.namespace') return object.metadata.namespace ?? '';
  return selectable?.[field]?.(object) ?? '';
}
