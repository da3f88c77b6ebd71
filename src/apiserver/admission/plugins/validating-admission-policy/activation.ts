/**
 * The CEL variables of one evaluation, as upstream declares them: object and
 * oldObject (null when absent), request (the AdmissionRequest without object,
 * oldObject and uid), namespaceObject (the request's namespace, a subset of
 * its metadata with spec and status; null for cluster-scoped requests),
 * params (null without params) and variables (each computed on first use and
 * kept, so a variable no expression reads never fails).
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { AdmissionAttributes } from '../../interfaces.js';
import { toCelValue, type CelValue } from './cel/values.js';
import type { CompiledPolicy } from './compiled-policy.js';

/** The parts shared by every binding and param of one request. */
export interface RequestVariables {
  readonly object: CelValue;
  readonly oldObject: CelValue;
  readonly request: CelValue;
  readonly namespaceObject: CelValue;
}

export function requestVariables(attributes: AdmissionAttributes, namespace: KubeObject | undefined): RequestVariables {
  const gvk = { group: attributes.kind.group, version: attributes.kind.version, kind: attributes.kind.kind };
  const gvr = { group: attributes.resource.group, version: attributes.resource.version, resource: attributes.resource.resource };
  const user = attributes.userInfo;
  return {
    object: toCelValue(attributes.object),
    oldObject: toCelValue(attributes.oldObject),
    request: toCelValue({
      kind: gvk,
      resource: gvr,
      subResource: attributes.subresource,
      requestKind: gvk,
      requestResource: gvr,
      requestSubResource: attributes.subresource,
      name: attributes.name,
      namespace: attributes.namespace,
      operation: attributes.operation,
      userInfo: { username: user.name, uid: user.uid ?? '', groups: [...user.groups], extra: user.extra ?? {} },
      dryRun: attributes.dryRun,
      options: attributes.options ?? null,
    }),
    namespaceObject: namespace === undefined ? null : toCelValue(namespaceSubset(namespace)),
  };
}

const NAMESPACE_METADATA = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'finalizers',
] as const;

function namespaceSubset(namespace: KubeObject): Record<string, unknown> {
  const meta = namespace.metadata as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  for (const key of NAMESPACE_METADATA) if (meta[key] !== undefined) metadata[key] = meta[key];
  const ns = namespace as KubeObject & { spec?: unknown; status?: unknown };
  return { metadata, ...(ns.spec !== undefined ? { spec: ns.spec } : {}), ...(ns.status !== undefined ? { status: ns.status } : {}) };
}

/** A variable that cannot be computed: expressions reading it fail with this message. */
class VariableError extends Error {}

/** The activation for one binding and param: the request's variables, params, and the policy's lazily computed variables. */
export function newActivation(policy: CompiledPolicy, shared: RequestVariables, param: KubeObject | null): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  const activation: Record<string, unknown> = { ...shared, params: param === null ? null : toCelValue(param), variables };
  for (const variable of policy.variables) {
    let state: 'new' | 'computing' | 'done' = 'new';
    let value: unknown;
    Object.defineProperty(variables, variable.name, {
      enumerable: true,
      configurable: true,
      get() {
        if (state === 'done') return value;
        if (state === 'computing') throw new VariableError(`composited variable "${variable.name}" fails to evaluate: cyclic reference`);
        if (variable.expression.compileError !== undefined) throw new VariableError(`composited variable "${variable.name}" fails to compile: ${variable.expression.compileError}`);
        state = 'computing';
        const result = variable.expression.evaluate(activation);
        state = 'new';
        if (result.error !== undefined) throw new VariableError(`composited variable "${variable.name}" fails to evaluate: ${result.error.replace(/^expression '.*' resulted in error: /s, '')}`);
        state = 'done';
        value = result.value;
        return value;
      },
    });
  }
  return activation;
}
