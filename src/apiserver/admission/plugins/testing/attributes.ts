/** Admission attributes for plugin unit tests: a core/v1 resource by default, with warnings and annotations recorded. */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { AdmissionAttributes, Operation } from '../../interfaces.js';

export interface TestAttributesOptions {
  readonly operation: Operation;
  readonly resource: string;
  readonly kind: string;
  readonly group?: string;
  readonly version?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly user?: { name: string; groups: string[] };
  readonly dryRun?: boolean;
}

export type TestAttributes = AdmissionAttributes & { readonly warnings: string[]; readonly annotations: Record<string, string> };

export function attributesFor(o: TestAttributesOptions): TestAttributes {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  return {
    operation: o.operation,
    kind: { group: o.group ?? '', version: o.version ?? 'v1', kind: o.kind },
    resource: { group: o.group ?? '', version: o.version ?? 'v1', resource: o.resource },
    subresource: o.subresource ?? '',
    namespace: o.namespace ?? 'default',
    name: o.name ?? o.object?.metadata.name ?? '',
    object: o.object,
    oldObject: o.oldObject,
    dryRun: o.dryRun ?? false,
    userInfo: o.user ?? { name: 'alice', groups: ['system:authenticated'] },
    addWarning: (text) => void warnings.push(text),
    addAuditAnnotation: (key, value) => void (annotations[key] = value),
    warnings,
    annotations,
  };
}
