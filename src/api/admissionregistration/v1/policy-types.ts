/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its binding, as k8ts reads them. */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { RuleWithOperations } from './types.js';

export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: string;
}

export interface Validation {
  expression?: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  spec?: {
    paramKind?: { apiVersion?: string; kind?: string };
    matchConstraints?: MatchResources;
    validations?: Validation[];
    failurePolicy?: string;
    auditAnnotations?: { key?: string; valueExpression?: string }[];
    matchConditions?: { name?: string; expression?: string }[];
    variables?: { name?: string; expression?: string }[];
  };
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: string;
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  spec?: {
    policyName?: string;
    paramRef?: ParamRef;
    matchResources?: MatchResources;
    validationActions?: string[];
  };
}
