import { timeStage } from '../audit/request-audit.js';
import { writeObject } from '../server/response.js';
import { validateListOptions } from './list-options.js';
import { negotiateOutput } from './negotiation.js';
import { parseInt64 } from './query.js';
import { selectionPredicate } from './selection.js';
import type { VerbHandler } from './target.js';
import { shapeList } from './transform.js';

/** GET of a collection: selectors, paging with limit/continue, resourceVersion semantics. */
export const handleList: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: true });
  validateListOptions(ctx.query, false);
  const predicate = selectionPredicate(ctx.query, t);
  const limit = parseInt64(ctx.query, 'limit');
  const list = await timeStage(ctx, 'etcd', () => t.store.list(t.namespace, {
    ...(predicate !== undefined ? { predicate } : {}),
    ...(limit !== undefined && limit > 0 ? { limit } : {}),
    ...optional('continue', ctx.query.get('continue')),
    ...optional('resourceVersion', ctx.query.get('resourceVersion')),
    ...optional('resourceVersionMatch', ctx.query.get('resourceVersionMatch')),
  }));
  writeObject(ctx, 200, shapeList(list, format, t.store.strategy.table, ctx.query), format);
};

function optional<K extends string>(key: K, value: string | null): { [k in K]?: string } {
  return value === null || value === '' ? {} : ({ [key]: value } as { [k in K]: string });
}
