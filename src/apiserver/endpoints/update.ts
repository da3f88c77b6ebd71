import { timeStage } from '../audit/request-audit.js';
import { admitMutating, validatingHook } from './admission.js';
import type { KubeObject } from '../../machinery/meta.js';
import { trackWrite } from '../fieldmanager/for-resource.js';
import { parseManagerOptions } from '../fieldmanager/request-options.js';
import { writeObject } from '../server/response.js';
import { readObject } from './decode-object.js';
import { negotiateOutput } from './negotiation.js';
import { parseDryRun } from './query.js';
import { userOf, warnTo, type VerbHandler } from './target.js';
import { dedupOwnerReferencesAndWarn } from './owner-references.js';

/** PUT of one object: replace it (optimistic concurrency on metadata.resourceVersion). */
export const handleUpdate: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const dryRun = parseDryRun(ctx.query, 'UpdateOptions');
  const expected = t.subresource?.kind ?? t.resource;
  const { manager } = parseManagerOptions(ctx.query, ctx.req.headers['user-agent'], 'UpdateOptions');
  const object = await readObject(ctx, expected, 'UpdateOptions');
  dedupOwnerReferencesAndWarn(ctx, object, 'request');
  const track = { ...t, defaults: (o: KubeObject) => t.store.strategy.defaults(o) };
  const validateAdmission = validatingHook(ctx, t, dryRun);
  const { object: stored, created } = await timeStage(ctx, 'etcd', () =>
    t.store.update(
      t.namespace,
      t.name,
      async (current) => {
        // Runs again after a conflict: mutating plugins are idempotent, as upstream requires.
        const next = trackWrite(track, current, object, manager);
        await admitMutating(ctx, t, current === undefined ? 'CREATE' : 'UPDATE', next, current, dryRun);
        dedupOwnerReferencesAndWarn(ctx, next, 'afterMutatingAdmission');
        return next;
      },
      { dryRun, ...userOf(ctx), ...warnTo(ctx), ...(validateAdmission !== undefined ? { validateAdmission } : {}) },
    ),
  );
  writeObject(ctx, created ? 201 : 200, stored, format);
};
