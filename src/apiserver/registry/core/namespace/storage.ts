/**
 * Namespaces: cluster-scoped, named as DNS labels, created Active with the
 * `kubernetes` finalizer (the namespace controller removes it once the
 * namespace is empty), marked Terminating on delete.
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { validateNamespaceName } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { baseStrategy, statusStrategy, type Strategy } from '../../generic/strategy.js';
import { NamespaceStore } from './store.js';
import { namespaceTable } from './table.js';

interface NamespaceFields {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

/** Upstream's v1.LabelMetadataName. */
export const METADATA_NAME_LABEL = 'kubernetes.io/metadata.name';

const fields = (o: KubeObject): NamespaceFields => o as KubeObject & NamespaceFields;

export const namespaceStrategy: Strategy = {
  ...baseStrategy,
  generation: false,
  // Upstream's SetDefaults_Namespace: every named namespace carries its name as a label.
  defaults: (o) => {
    const name = o.metadata.name;
    if (name !== undefined && name !== '') o.metadata.labels = { ...(o.metadata.labels ?? {}), [METADATA_NAME_LABEL]: name };
  },
  prepareForCreate: (o) => {
    const ns = fields(o);
    ns.status = { phase: 'Active' };
    // Every namespace carries the kubernetes finalizer, so that it lives until its content is gone.
    const finalizers = new Set(ns.spec?.finalizers ?? []);
    finalizers.add('kubernetes');
    ns.spec = { ...(ns.spec ?? {}), finalizers: [...finalizers].sort() };
  },
  prepareForUpdate: (o, old) => {
    const ns = fields(o);
    const prev = fields(old);
    // spec.finalizers changes only through /finalize; status only through /status.
    ns.spec = prev.spec === undefined ? {} : structuredClone(prev.spec);
    if (prev.status === undefined) delete ns.status;
    else ns.status = prev.status;
  },
  selectableFields: { 'status.phase': (o) => fields(o).status?.phase ?? '' },
  table: namespaceTable as unknown as TableConvertor<KubeObject>,
};

/** PUT /api/v1/namespaces/NAME/finalize: only spec.finalizers changes. */
export const namespaceFinalizeStrategy: Strategy = {
  ...namespaceStrategy,
  prepareForUpdate: (o, old) => {
    const ns = fields(o);
    const finalizers = ns.spec?.finalizers ?? [];
    for (const key of Object.keys(o)) if (key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') delete o[key];
    Object.assign(o, structuredClone({ ...old, metadata: o.metadata }));
    const meta = o.metadata;
    meta.labels = old.metadata.labels;
    meta.annotations = old.metadata.annotations;
    meta.finalizers = old.metadata.finalizers;
    fields(o).spec = { finalizers };
  },
};

export const namespaceDefinition: ResourceDefinition = {
  strategy: namespaceStrategy,
  statusStrategy: statusStrategy(namespaceStrategy),
  validateName: validateNamespaceName,
  newStore: (config) => new NamespaceStore(config),
  returnDeletedObject: true,
  subresourceStrategies: { finalize: namespaceFinalizeStrategy },
};
