import { timeStage } from '../audit/request-audit.js';
import { checkGetResourceVersion } from '../registry/generic/store.js';
import { writeObject } from '../server/response.js';
import { negotiateOutput } from './negotiation.js';
import type { VerbHandler } from './target.js';
import { shapeObject } from './transform.js';

/** GET of one object. */
export const handleGet: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: true });
  await checkGetResourceVersion(t.store, ctx.query.get('resourceVersion'));
  const object = await timeStage(ctx, 'etcd', () => t.store.get(t.namespace, t.name));
  writeObject(ctx, 200, shapeObject(object, format, t.store.strategy.table, ctx.query), format);
};
