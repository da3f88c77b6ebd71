/**
 * Policies and bindings in memory, fed by watches of the server's own stores,
 * as the hooks the plugin runs: each policy (compiled once per version of the
 * object) with its bindings, both sorted by name so that the first refusal is
 * always the same one.
 */
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../../api/admissionregistration/v1/policy-types.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { AdmissionDependencies } from '../../interfaces.js';
import { compilePolicy, type CompiledPolicy } from './compiled-policy.js';
import { watchObjects, type WatchedObjects } from '../../watched-objects.js';

const nameOf = (o: KubeObject): string => o.metadata?.name ?? '';
/** Sorted by name, so that the first refusal is always the same one. */
const byName = <T extends KubeObject>(objects: readonly T[]): T[] =>
  [...objects].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));

export interface PolicyHook {
  readonly policy: CompiledPolicy;
  readonly bindings: readonly ValidatingAdmissionPolicyBinding[];
}

export interface PolicySource {
  ready(): Promise<void>;
  hooks(): readonly PolicyHook[];
}

export function newPolicySource(deps: AdmissionDependencies, options: { readonly retryDelayMs?: number } = {}): PolicySource {
  const store = (resource: string) => {
    const s = deps.stores('admissionregistration.k8s.io', 'v1', resource);
    if (s === undefined) throw new Error(`admissionregistration.k8s.io/v1 ${resource} is not served`);
    return s;
  };
  const watchOptions = { signal: deps.signal, ...(options.retryDelayMs !== undefined ? { retryDelayMs: options.retryDelayMs } : {}) };
  const policies: WatchedObjects<ValidatingAdmissionPolicy> = watchObjects({ store: store('validatingadmissionpolicies'), ...watchOptions });
  const bindings: WatchedObjects<ValidatingAdmissionPolicyBinding> = watchObjects({ store: store('validatingadmissionpolicybindings'), ...watchOptions });
  const compiled = new Map<string, CompiledPolicy>();
  let built: { policies: number; bindings: number; hooks: PolicyHook[] } | undefined;

  const rebuild = (): PolicyHook[] => {
    const byPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
    for (const binding of byName(bindings.list(''))) {
      const policyName = binding.spec?.policyName ?? '';
      byPolicy.set(policyName, [...(byPolicy.get(policyName) ?? []), binding]);
    }
    const hooks: PolicyHook[] = [];
    const current = byName(policies.list(''));
    const names = new Set(current.map(nameOf));
    for (const name of [...compiled.keys()]) if (!names.has(name)) compiled.delete(name);
    for (const object of current) {
      const name = nameOf(object);
      let policy = compiled.get(name);
      if (policy === undefined || policy.policy !== object) {
        policy = compilePolicy(object);
        compiled.set(name, policy);
      }
      const forPolicy = byPolicy.get(name);
      if (forPolicy !== undefined) hooks.push({ policy, bindings: forPolicy });
    }
    return hooks;
  };

  return {
    ready: async () => void (await Promise.all([policies.ready(), bindings.ready()])),
    hooks() {
      if (built === undefined || built.policies !== policies.version || built.bindings !== bindings.version) {
        built = { policies: policies.version, bindings: bindings.version, hooks: rebuild() };
      }
      return built.hooks;
    },
  };
}
