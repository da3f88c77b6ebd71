/**
 * The cluster zone in memory: the records of every Service, by owner name,
 * replaced a Service at a time (the informers' handlers call {@link ZoneIndex.setService}
 * and {@link ZoneIndex.deleteService}). It also counts, for every name, the
 * records at or below it, so that an empty non-terminal such as
 * `NS.svc.DOMAIN` answers NOERROR rather than NXDOMAIN.
 */
import type { Answer } from 'dns-packet';
import type { ZoneLookup } from './resolver.js';

/** `a.b.c` → `a.b.c`, `b.c`, `c`. */
function selfAndAncestors(name: string): string[] {
  const out: string[] = [];
  let rest = name;
  for (;;) {
    out.push(rest);
    const dot = rest.indexOf('.');
    if (dot < 0) return out;
    rest = rest.slice(dot + 1);
  }
}

export class ZoneIndex implements ZoneLookup {
  private readonly byService = new Map<string, readonly Answer[]>();
  private readonly byName = new Map<string, Answer[]>();
  private readonly below = new Map<string, number>();
  private serialNumber: number;

  constructor(private readonly now: () => number = Date.now) {
    this.serialNumber = Math.floor(now() / 1000);
  }

  get serial(): number {
    return this.serialNumber;
  }

  /** How many Services contribute records. */
  get size(): number {
    return this.byService.size;
  }

  records(name: string): readonly Answer[] {
    return this.byName.get(name) ?? [];
  }

  hasDescendants(name: string): boolean {
    return (this.below.get(name) ?? 0) > 0;
  }

  /** Replace the records of the Service `key` (`namespace/name`). */
  setService(key: string, records: readonly Answer[]): void {
    this.remove(key);
    if (records.length > 0) {
      this.byService.set(key, records);
      for (const record of records) {
        const list = this.byName.get(record.name);
        if (list === undefined) this.byName.set(record.name, [record]);
        else list.push(record);
        for (const name of selfAndAncestors(record.name)) this.below.set(name, (this.below.get(name) ?? 0) + 1);
      }
    }
    this.touch();
  }

  deleteService(key: string): void {
    this.remove(key);
    this.touch();
  }

  private remove(key: string): void {
    const old = this.byService.get(key);
    if (old === undefined) return;
    this.byService.delete(key);
    for (const record of old) {
      const list = this.byName.get(record.name)?.filter((r) => r !== record) ?? [];
      if (list.length === 0) this.byName.delete(record.name);
      else this.byName.set(record.name, list);
      for (const name of selfAndAncestors(record.name)) {
        const count = (this.below.get(name) ?? 0) - 1;
        if (count <= 0) this.below.delete(name);
        else this.below.set(name, count);
      }
    }
  }

  private touch(): void {
    // A serial that always grows, even for two changes in one second.
    this.serialNumber = Math.max(this.serialNumber + 1, Math.floor(this.now() / 1000)) >>> 0;
  }
}
