/**
 * `kubectl get validatingadmissionpolicies`: NAME, VALIDATIONS, PARAMKIND, AGE;
 * `kubectl get validatingadmissionpolicybindings`: NAME, POLICYNAME, PARAMREF, AGE, as upstream prints them.
 */
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../../api/admissionregistration/v1/policy-types.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { labelSelectorFromObject } from '../../../../machinery/selectors/label-selector.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

const ageOf = (o: KubeObject, now: Date): string => age({ metadata: { creationTimestamp: o.metadata.creationTimestamp ?? '' } }, now);

export const validatingAdmissionPolicyTable: TableConvertor<KubeObject> = {
  columns: [
    nameColumn(),
    column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageColumn(),
  ],
  cells(object, now) {
    const spec = (object as ValidatingAdmissionPolicy).spec;
    const kind = spec?.paramKind;
    const paramKind = kind !== undefined && kind !== null ? `${kind.apiVersion ?? ''}/${kind.kind ?? ''}` : '<unset>';
    return [object.metadata.name ?? '', (spec?.validations ?? []).length, paramKind, ageOf(object, now)];
  },
};

export const validatingAdmissionPolicyBindingTable: TableConvertor<KubeObject> = {
  columns: [
    nameColumn(),
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn(),
  ],
  cells(object, now) {
    const spec = (object as ValidatingAdmissionPolicyBinding).spec;
    const ref = spec?.paramRef;
    let param = '<unset>';
    if (ref !== undefined && ref !== null) {
      if (ref.name !== undefined && ref.name !== '') param = `${ref.namespace !== undefined && ref.namespace !== '' ? ref.namespace : '*'}/${ref.name}`;
      else if (ref.selector !== undefined && ref.selector !== null) param = labelSelectorFromObject(ref.selector).toString();
    }
    return [object.metadata.name ?? '', spec?.policyName ?? '', param, ageOf(object, now)];
  },
};
