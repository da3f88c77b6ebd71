import { writeObject } from '../server/response.js';
import { readObject } from './decode-object.js';
import { negotiateOutput } from './negotiation.js';
import { parseDryRun } from './query.js';
import type { VerbHandler } from './target.js';

/** PUT of one object: replace it (optimistic concurrency on metadata.resourceVersion). */
export const handleUpdate: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const dryRun = parseDryRun(ctx.query);
  const expected = t.subresource?.kind ?? t.resource;
  const object = await readObject(ctx, expected, 'UpdateOptions');
  const { object: stored, created } = await t.store.update(t.namespace, t.name, () => structuredClone(object), { dryRun });
  writeObject(ctx, created ? 201 : 200, stored, format);
};
