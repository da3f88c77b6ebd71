import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReflectorEvent } from '../../../../client/cache/reflector.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isResourceExpired } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { mayBeBound, newBoundPodsListerWatcher } from './bound-pods.js';

const PREFIX = '/registry/pods/';
const bytes = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');
const pod = (name: string, nodeName?: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns', ...extra },
  spec: { containers: [{ name: 'c', image: 'i' }], ...(nodeName !== undefined ? { nodeName } : {}) },
});
const key = (name: string): string => `${PREFIX}ns/${name}`;

describe('mayBeBound (the test on the stored bytes)', () => {
  it('is false without a non-empty nodeName', () => {
    assert.equal(mayBeBound(bytes(pod('a'))), false);
    assert.equal(mayBeBound(bytes(pod('a', ''))), false);
  });

  it('is true with one', () => {
    assert.equal(mayBeBound(bytes(pod('a', 'n1'))), true);
  });

  it('is true (a decode, not a wrong answer) for a field of that name elsewhere, even after an empty one', () => {
    assert.equal(mayBeBound(bytes({ ...pod('a', ''), metadata: { name: 'a', annotations: { nodeName: 'x' } } })), true);
  });

  it('is false for the text inside a string value (its quotes are escaped)', () => {
    assert.equal(mayBeBound(bytes(pod('a', undefined, { annotations: { note: '"nodeName":"x"' } }))), false);
  });

  it('reads a view into a larger buffer only within its bounds', () => {
    const whole = Buffer.concat([bytes(pod('a')), bytes(pod('b', 'n1'))]);
    const first = bytes(pod('a')).byteLength;
    assert.equal(mayBeBound(new Uint8Array(whole.buffer, whole.byteOffset, first)), false);
    assert.equal(mayBeBound(new Uint8Array(whole.buffer, whole.byteOffset + first, whole.byteLength - first)), true);
  });
});

describe('newBoundPodsListerWatcher', () => {
  it('lists only the pods bound to a node, at the storage revision', async () => {
    const storage = newMemoryStorage();
    await storage.create(key('free'), bytes(pod('free')));
    const bound = await storage.create(key('bound'), bytes(pod('bound', 'n1')));
    await storage.create('/registry/other/ns/x', bytes(pod('x', 'n1')));
    const lw = newBoundPodsListerWatcher({ storage, prefix: PREFIX });
    const list = await lw.list();
    assert.deepEqual(
      list.items.map((p) => [p.metadata.name, p.metadata.resourceVersion]),
      [['bound', String(bound.modRevision)]],
    );
    assert.equal(list.resourceVersion, String(await storage.currentRevision()));
    await storage.close();
  });

  it('watches: bound pods come and go; an unbound pod, its update and its deletion are skipped', async () => {
    const storage = newMemoryStorage();
    const lw = newBoundPodsListerWatcher({ storage, prefix: PREFIX });
    const from = await storage.currentRevision();
    const free = await storage.create(key('free'), bytes(pod('free')));
    const freeAgain = await storage.update(key('free'), bytes(pod('free', undefined, { labels: { a: 'b' } })), free.modRevision);
    const bound = await storage.update(key('free'), bytes(pod('free', 'n1')), freeAgain.modRevision);
    const other = await storage.create(key('other'), bytes(pod('other')));
    const gone = await storage.delete(key('other'));
    const boundGone = await storage.delete(key('free'));
    const watch = lw.watch(String(from));
    const seen: string[] = [];
    for await (const event of watch as AsyncIterable<ReflectorEvent<KubeObject>>) {
      seen.push(event.type === 'BOOKMARK' ? `BOOKMARK ${event.resourceVersion}` : `${event.type} ${event.object.metadata.name} ${event.resourceVersion}`);
      if (seen.length === 2) watch.cancel();
    }
    assert.deepEqual(seen, [`MODIFIED free ${bound.modRevision}`, `DELETED free ${boundGone.revision}`]);
    assert.ok(free.modRevision < freeAgain.modRevision && other.modRevision < gone.revision);
    await storage.close();
  });

  it('moves the reflector on with a bookmark once in 256 skipped events', async () => {
    const storage = newMemoryStorage();
    const lw = newBoundPodsListerWatcher({ storage, prefix: PREFIX });
    const from = await storage.currentRevision();
    let at256 = 0;
    for (let i = 1; i <= 300; i++) {
      const kv = await storage.create(key(`p${i}`), bytes(pod(`p${i}`)));
      if (i === 256) at256 = kv.modRevision;
    }
    const bound = await storage.create(key('bound'), bytes(pod('bound', 'n1')));
    const watch = lw.watch(String(from));
    const seen: string[] = [];
    for await (const event of watch as AsyncIterable<ReflectorEvent<KubeObject>>) {
      seen.push(event.type === 'BOOKMARK' ? `BOOKMARK ${event.resourceVersion}` : `${event.type} ${event.object.metadata.name} ${event.resourceVersion}`);
      if (event.type !== 'BOOKMARK') watch.cancel();
    }
    assert.deepEqual(seen, [`BOOKMARK ${at256}`, `ADDED bound ${bound.modRevision}`]);
    await storage.close();
  });

  it('answers a compacted revision with 410 Expired, so that the reflector lists again', async () => {
    const storage = newMemoryStorage();
    await storage.create(key('a'), bytes(pod('a', 'n1')));
    await storage.create(key('b'), bytes(pod('b', 'n1')));
    await storage.compact(await storage.currentRevision());
    const watch = newBoundPodsListerWatcher({ storage, prefix: PREFIX }).watch('1');
    await assert.rejects(
      (async () => {
        for await (const _ of watch) break;
      })(),
      (e: unknown) => isResourceExpired(e),
    );
    await storage.close();
  });
});
