/**
 * ValidatingAdmissionPolicy (spec and /status, generation moving with the
 * spec) and ValidatingAdmissionPolicyBinding: served with upstream's defaults
 * and structural validation (expressions are compiled by the enforcing
 * ValidatingAdmissionPolicy admission plugin, not here).
 */
import { defaultValidatingAdmissionPolicy, defaultValidatingAdmissionPolicyBinding } from '../../../../api/admissionregistration/v1/policy-defaults.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../../api/admissionregistration/v1/policy-types.js';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from '../../../../api/admissionregistration/v1/policy-validation.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { baseStrategy, plainStrategy, statusStrategy, type Strategy } from '../../generic/strategy.js';
import { validatingAdmissionPolicyBindingTable, validatingAdmissionPolicyTable } from './table.js';

const policyStrategy: Strategy = {
  ...baseStrategy,
  defaults: (o) => defaultValidatingAdmissionPolicy(o as ValidatingAdmissionPolicy),
  validate: (o) => validateValidatingAdmissionPolicy(o as ValidatingAdmissionPolicy),
  validateUpdate: (o) => validateValidatingAdmissionPolicy(o as ValidatingAdmissionPolicy),
  table: validatingAdmissionPolicyTable,
};

export const validatingAdmissionPolicyDefinition: ResourceDefinition = {
  strategy: policyStrategy,
  statusStrategy: statusStrategy(policyStrategy),
  validateName: nameIsDNSSubdomain,
};

export const validatingAdmissionPolicyBindingDefinition: ResourceDefinition = {
  strategy: {
    ...plainStrategy,
    generation: true,
    defaults: (o) => defaultValidatingAdmissionPolicyBinding(o as ValidatingAdmissionPolicyBinding),
    validate: (o) => validateValidatingAdmissionPolicyBinding(o as ValidatingAdmissionPolicyBinding),
    validateUpdate: (o) => validateValidatingAdmissionPolicyBinding(o as ValidatingAdmissionPolicyBinding),
    table: validatingAdmissionPolicyBindingTable,
  },
  validateName: nameIsDNSSubdomain,
};
