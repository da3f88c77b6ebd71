/**
 * A DaemonSet's revisions (upstream's snapshot in daemon/update.go): the
 * template's hash names the revision `<ds>-<hash>` and is the value of the
 * controller-revision-hash label on the revision and on every pod made from
 * it. The hash is FNV-1a of the template (as Go-shaped JSON; upstream hashes
 * Go's printed struct, so the values differ from upstream's but are as
 * stable) followed by the collision count as 8 little-endian bytes, as
 * upstream's ComputeHash appends it.
 */
import { goSortedJson } from '../history/go-json.js';
import { encodeHash, fnv32a } from '../history/hash.js';
import { controllerRevisionName, POD_REVISION_LABEL, templatePatch, type ControllerRevisionObject } from '../history/controller-revision.js';
import type { OwnerReference } from '../../machinery/meta.js';
import type { DaemonSetObject } from './types.js';

/** The hash of the DaemonSet's current template with its collision count (upstream's controller.ComputeHash). */
export function daemonSetTemplateHash(ds: DaemonSetObject): string {
  const parts: (string | Uint8Array)[] = [goSortedJson(ds.spec?.template ?? {})];
  const collisionCount = ds.status?.collisionCount;
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    parts.push(bytes);
  }
  return encodeHash(fnv32a(...parts));
}

/** The revision that records the DaemonSet's current template as revision number `revision`. */
export function daemonSetRevision(ds: DaemonSetObject, revision: number, controllerRef: OwnerReference): ControllerRevisionObject {
  const hash = daemonSetTemplateHash(ds);
  const cr: ControllerRevisionObject = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(ds.metadata.name ?? '', hash),
      labels: { ...(ds.spec?.template.metadata?.labels ?? {}), [POD_REVISION_LABEL]: hash },
      ownerReferences: [{ ...controllerRef }],
    },
    data: templatePatch(ds),
    revision,
  };
  if (ds.metadata.namespace !== undefined) cr.metadata.namespace = ds.metadata.namespace;
  if (ds.metadata.annotations !== undefined) cr.metadata.annotations = { ...ds.metadata.annotations };
  return cr;
}
