/**
 * The generic store's view of a kind served in several versions (a
 * `VersionCodec` from api/conversion): requests and responses carry the served
 * version, the strategy, field selectors and tables read the internal form,
 * and storage holds the storage version. This file holds the two adapters the
 * store needs besides the codec's own functions.
 */
import type { VersionCodec } from '../../../api/conversion/conversion-registry.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { TableConvertor } from '../../../machinery/table.js';
import type { Predicate } from './object-storage.js';
import type { Strategy } from './strategy.js';

/**
 * The strategy as request handlers see it: its table reads the internal form,
 * handlers hand it served objects.
 */
export function servedStrategy(strategy: Strategy, codec: VersionCodec): Strategy {
  const table = strategy.table;
  if (table === undefined) return strategy;
  const served: TableConvertor<KubeObject> = { ...table, cells: (object, now) => table.cells(codec.toInternal(object), now) };
  return { ...strategy, table: served };
}

/** A predicate over the internal form (selectable fields are internal), applied to stored objects. */
export function storedPredicate(predicate: Predicate | undefined, codec: VersionCodec): Predicate | undefined {
  return predicate === undefined ? undefined : (stored) => predicate(codec.fromStorage(stored));
}
