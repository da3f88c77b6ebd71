import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import { AllocationError } from './allocation-errors.js';
import { NodePortAllocator, NodePortOperation, portRangeOffset } from './port-allocator.js';
import { formatPortRange, parsePortRange } from './port-range.js';

const web = { namespace: 'default', name: 'web' };
const db = { namespace: 'default', name: 'db' };
const first = (): bigint => 0n;
const newPorts = (range = '30000-32767', random?: () => bigint): NodePortAllocator =>
  new NodePortAllocator(parsePortRange(range), new ObjectStorage(newMemoryStorage()), '/registry', random);

describe('parsePortRange', () => {
  it('reads upstream forms and prints base-last', () => {
    assert.deepEqual(parsePortRange('30000-32767'), { base: 30000, size: 2768 });
    assert.deepEqual(parsePortRange(' 30000+10 '), { base: 30000, size: 11 });
    assert.deepEqual(parsePortRange('30000'), { base: 30000, size: 1 });
    assert.equal(formatPortRange(parsePortRange('30000-32767')), '30000-32767');
  });

  it('rejects what upstream rejects', () => {
    assert.throws(() => parsePortRange('32767-30000'), /end port cannot be less than start port: 32767-30000/);
    assert.throws(() => parsePortRange('30000-70000'), /the port range cannot be greater than 65535: 30000-70000/);
    assert.throws(() => parsePortRange('a-b'), /not a number/);
    assert.throws(() => parsePortRange('1+2-3'), /unable to parse port range: 1\+2-3/);
  });
});

describe('portRangeOffset', () => {
  it('is min(max(16, size/32), 128), and 0 for 16 or fewer ports', () => {
    assert.equal(portRangeOffset(16), 0);
    assert.equal(portRangeOffset(100), 16);
    assert.equal(portRangeOffset(2768), 86);
    assert.equal(portRangeOffset(10000), 128);
  });
});

describe('NodePortAllocator', () => {
  it('refuses ports outside the range and taken ports with upstream texts', async () => {
    const ports = newPorts();
    await ports.allocate(30080, web);
    await assert.rejects(ports.allocate(30080, db), { name: 'AllocationError', message: 'provided port is already allocated' });
    await assert.rejects(ports.allocate(80, db), { message: 'provided port is not in the valid range. The range of valid ports is 30000-32767' });
  });

  it('hands out the upper part of the range first, then the static part, then says it is full', async () => {
    // 40 ports: the first 16 kept for static requests.
    const ports = newPorts('30000-30039', first);
    const got: number[] = [];
    for (let i = 0; i < 40; i++) got.push(await ports.allocateNext({ namespace: 'default', name: `s${i}` }));
    assert.deepEqual(got.slice(0, 24), Array.from({ length: 24 }, (_, i) => 30016 + i));
    assert.deepEqual(got.slice(24), Array.from({ length: 16 }, (_, i) => 30000 + i));
    await assert.rejects(ports.allocateNext(web), { message: 'range is full' });
  });

  it('releases a port only for its owner', async () => {
    const ports = newPorts();
    await ports.allocate(30100, web);
    assert.equal(await ports.release(30100, db), false);
    assert.equal(await ports.release(30100, web), true);
    assert.equal(await ports.has(30100), false);
  });

  it('never hands out one port twice to allocators sharing a store', async () => {
    const storage = new ObjectStorage(newMemoryStorage());
    const range = parsePortRange('30000-30019');
    const a = new NodePortAllocator(range, storage, '/registry');
    const b = new NodePortAllocator(range, storage, '/registry', first);
    const results = await Promise.allSettled(Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).allocateNext({ namespace: 'ns', name: `s${i}` })));
    const got = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.equal(got.length, 20);
    assert.equal(new Set(got).size, 20);
    assert.ok(results.every((r) => r.status === 'fulfilled' || (r.reason instanceof AllocationError && r.reason.reason === 'Full')));
  });
});

describe('NodePortOperation', () => {
  it('gives back what it claimed unless committed, and releases deferred ports on commit', async () => {
    const ports = newPorts();
    await ports.allocate(30200, web);
    const failed = new NodePortOperation(ports, web, false);
    await failed.allocate(30201);
    const next = await failed.allocateNext();
    await failed.revert();
    assert.equal(await ports.has(30201), false);
    assert.equal(await ports.has(next), false);

    const ok = new NodePortOperation(ports, web, false);
    await ok.allocate(30202);
    ok.releaseDeferred(30200);
    assert.equal(await ports.has(30200), true, 'a deferred release waits for the commit');
    await ok.commit();
    await ok.revert();
    assert.equal(await ports.has(30200), false);
    assert.equal(await ports.has(30202), true, 'a committed claim stays');
  });

  it('claims nothing in a dry run and answers upstream’s dummy ports', async () => {
    const ports = newPorts();
    await ports.allocate(30300, db);
    const dry = new NodePortOperation(ports, web, true);
    await assert.rejects(dry.allocate(30300), { message: 'provided port is already allocated' });
    await dry.allocate(30301);
    await assert.rejects(dry.allocate(30301), { message: 'provided port is already allocated' });
    assert.equal(await dry.allocateNext(), 30302);
    assert.equal(await ports.has(30301), false);
    const fresh = new NodePortOperation(ports, web, true);
    assert.equal(await fresh.allocateNext(), 32769);
  });
});
