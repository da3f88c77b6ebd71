import type { Storage } from '../storage/interface.js';

export interface StoreReport {
  readonly revision: number;
  readonly keys: number;
  /** Keys per resource: the path segment after the prefix (`/registry/pods/…` → pods). */
  readonly byResource: ReadonlyMap<string, number>;
}

/** Count the keys under the prefix, page by page at one revision. */
export async function reportStore(store: Storage, prefix: string): Promise<StoreReport> {
  const base = prefix.endsWith('/') ? prefix : `${prefix}/`;
  const byResource = new Map<string, number>();
  let keys = 0;
  let page = await store.list(base, { limit: 500 });
  const revision = page.revision;
  for (;;) {
    for (const kv of page.items) {
      keys++;
      const resource = kv.key.slice(base.length).split('/')[0] ?? '';
      byResource.set(resource, (byResource.get(resource) ?? 0) + 1);
    }
    const last = page.items.at(-1);
    if (!page.more || last === undefined) break;
    page = await store.list(base, { limit: 500, revision, continueFrom: last.key });
  }
  return { revision, keys, byResource };
}

export function formatReport(report: StoreReport): string {
  const lines = [`revision ${report.revision}, ${report.keys} key${report.keys === 1 ? '' : 's'}`];
  for (const [resource, count] of [...report.byResource].sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`  ${resource}: ${count}`);
  }
  return lines.join('\n');
}
