/**
 * The CEL environments of admission policies, built once: cel-js with
 * optional types and mixed literals, the libraries Kubernetes adds, and the
 * variables upstream declares — object, oldObject, request, namespaceObject
 * and variables, plus params when the policy has a paramKind (without one,
 * `params` does not compile, as upstream). The authorizer variable is not
 * declared: k8ts does not hand the server's authorizer to admission plugins.
 */
import { Environment } from '@marcbachmann/cel-js';
import { registerListsLibrary } from './library-lists.js';
import { registerQuantityLibrary } from './library-quantity.js';
import { registerRegexLibrary } from './library-regex.js';
import { registerSetsLibrary } from './library-sets.js';
import { registerStringsLibrary } from './library-strings.js';
import { registerUrlsLibrary } from './library-urls.js';

export interface PolicyEnvironments {
  readonly withParams: Environment;
  readonly withoutParams: Environment;
}

let built: PolicyEnvironments | undefined;

export function policyEnvironments(): PolicyEnvironments {
  if (built !== undefined) return built;
  const base = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  registerStringsLibrary(base);
  registerListsLibrary(base);
  registerRegexLibrary(base);
  registerSetsLibrary(base);
  registerUrlsLibrary(base);
  registerQuantityLibrary(base);
  base
    .registerVariable('object', 'dyn')
    .registerVariable('oldObject', 'dyn')
    .registerVariable('request', 'dyn')
    .registerVariable('namespaceObject', 'dyn')
    .registerVariable('variables', 'map<string, dyn>');
  const withoutParams = base.clone();
  const withParams = base.clone().registerVariable('params', 'dyn');
  built = { withParams, withoutParams };
  return built;
}
