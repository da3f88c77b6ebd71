/**
 * The namespace store: namespaces live on while their spec.finalizers hold
 * them, as upstream's namespace REST does. The first DELETE only marks the
 * namespace (deletionTimestamp, phase Terminating); the namespace controller
 * empties it and removes `kubernetes` from spec.finalizers through /finalize,
 * and the update that leaves no finalizer of either kind deletes it.
 */
import { formatTime, type KubeObject } from '../../../../machinery/meta.js';
import { notFound } from '../../../../machinery/status.js';
import { GenericStore, type DeleteParams, type DeleteResult } from '../../generic/store.js';

interface NamespaceFields {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

const fields = (o: KubeObject): NamespaceFields => o as KubeObject & NamespaceFields;

/** The garbage-collection finalizers a delete with these options asks for (upstream's shouldHaveOrphanFinalizer / shouldHaveDeleteDependentsFinalizer). */
function gcFinalizers(existing: readonly string[], params: DeleteParams): string[] {
  const policy = params.propagationPolicy ?? (params.orphanDependents === true ? 'Orphan' : params.orphanDependents === false ? 'Background' : undefined);
  const keep = existing.filter((f) => policy === undefined || (f !== 'orphan' && f !== 'foregroundDeletion'));
  if (policy === 'Orphan') keep.push('orphan');
  if (policy === 'Foreground') keep.push('foregroundDeletion');
  return keep;
}

export class NamespaceStore extends GenericStore {
  override async delete(namespace: string | undefined, name: string, params: DeleteParams = {}): Promise<DeleteResult> {
    const key = this.key(undefined, name);
    const current = await this.translate(name, () => this.storage.get(key));
    if (current === undefined) throw notFound(this.groupResource, name);
    this.checkPreconditions(current, name, params.preconditions);
    const { admitDeletion, ...rest } = params;
    await admitDeletion?.(this.withTypeMeta(structuredClone(current)));
    params = rest;
    // Upstream always deletes with a UID precondition: the namespace marked is the one read.
    const uid = params.preconditions?.uid ?? current.metadata.uid;
    const preconditions = { ...params.preconditions, ...(uid !== undefined ? { uid } : {}) };
    if (current.metadata.deletionTimestamp === undefined) {
      const mark = (latest: KubeObject | undefined): KubeObject => {
        if (latest === undefined) throw notFound(this.groupResource, name);
        this.checkPreconditions(latest, name, preconditions);
        const meta = latest.metadata;
        meta.deletionTimestamp ??= formatTime(new Date());
        const ns = fields(latest);
        ns.status = { ...(ns.status ?? {}), phase: 'Terminating' };
        const finalizers = gcFinalizers(meta.finalizers ?? [], params);
        if (finalizers.length > 0) meta.finalizers = finalizers;
        else delete meta.finalizers;
        return latest;
      };
      if (params.dryRun === true) return { object: this.withTypeMeta(mark(structuredClone(current))), deleted: false };
      const { object } = await this.translate(name, () => this.storage.guaranteedUpdate(key, mark, { allowCreate: false }));
      return { object: this.withTypeMeta(object), deleted: false };
    }
    // Being deleted already: it goes once nothing holds it, which the namespace controller sees to.
    if ((fields(current).spec?.finalizers ?? []).length > 0) return { object: this.withTypeMeta(current), deleted: false };
    return super.delete(namespace, name, { ...params, preconditions });
  }

  protected override shouldDeleteDuringUpdate(object: KubeObject): boolean {
    return (fields(object).spec?.finalizers ?? []).length === 0 && super.shouldDeleteDuringUpdate(object);
  }
}
