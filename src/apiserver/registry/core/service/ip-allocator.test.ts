import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCidr } from '../../../../machinery/cidr.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import { AllocationError } from './allocation-errors.js';
import { ClusterIPAllocator, rangeOffset } from './ip-allocator.js';

const web = { namespace: 'default', name: 'web' };
const db = { namespace: 'default', name: 'db' };
const first = (): bigint => 0n;

async function rejects(p: Promise<unknown>, reason: string, message: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof AllocationError, `an AllocationError, got ${String(e)}`);
    assert.equal(e.reason, reason);
    assert.equal(e.message, message);
    return true;
  });
}

describe('rangeOffset', () => {
  it('is min(max(16, size/16), 256), and 0 for ranges of 16 or fewer addresses', () => {
    assert.equal(rangeOffset(16n), 0n);
    assert.equal(rangeOffset(32n), 16n);
    assert.equal(rangeOffset(256n), 16n);
    assert.equal(rangeOffset(1024n), 64n);
    assert.equal(rangeOffset(1n << 20n), 256n);
  });
});

describe('ClusterIPAllocator', () => {
  it('stores an IPAddress object naming the service for each allocated address', async () => {
    const storage = new ObjectStorage(newMemoryStorage());
    const ips = new ClusterIPAllocator(parseCidr('10.96.0.0/24'), storage, '/registry');
    assert.equal(await ips.allocate('10.96.0.10', web), '10.96.0.10');
    const stored = await storage.get('/registry/ipaddresses/10.96.0.10');
    assert.equal(stored?.apiVersion, 'networking.k8s.io/v1');
    assert.equal(stored?.kind, 'IPAddress');
    assert.deepEqual(stored?.metadata.labels, { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' });
    assert.deepEqual(stored?.spec, { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } });
  });

  it('refuses a taken address, and addresses the range does not hand out, with upstream 1.33 texts', async () => {
    const ips = new ClusterIPAllocator(parseCidr('10.96.0.0/24'), new ObjectStorage(newMemoryStorage()), '/registry');
    await ips.allocate('10.96.0.10', web);
    await rejects(ips.allocate('10.96.0.10', db), 'Allocated', 'provided IP is already allocated');
    // Leading zeros name the same address.
    await rejects(ips.allocate('010.096.000.010', db), 'Allocated', 'provided IP is already allocated');
    for (const ip of ['10.96.1.1', '10.96.0.0', '10.96.0.255', 'fd00::1']) {
      await rejects(ips.allocate(ip, db), 'MismatchedNetwork', 'the provided network does not match the current range');
    }
    // A dry run checks the range only, as upstream's dry-run allocator, with its message.
    await rejects(ips.allocate('10.96.1.1', db, true), 'NotInRange', 'the provided IP (10.96.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/24');
    assert.equal(await ips.allocate('10.96.0.10', db, true), '10.96.0.10');
    assert.equal(await ips.allocateNext(db, true), '10.96.0.0');
  });

  it('hands out the upper part of the range first, then the lower part, then says it is full', async () => {
    // A /27: 30 addresses, .1-.16 kept for static requests, .17-.30 handed out first.
    const ips = new ClusterIPAllocator(parseCidr('10.0.0.0/27'), new ObjectStorage(newMemoryStorage()), '/registry', first);
    const got: string[] = [];
    for (let i = 0; i < 30; i++) got.push(await ips.allocateNext({ namespace: 'default', name: `s${i}` }));
    assert.deepEqual(got.slice(0, 14), Array.from({ length: 14 }, (_, i) => `10.0.0.${17 + i}`));
    assert.deepEqual(got.slice(14), Array.from({ length: 16 }, (_, i) => `10.0.0.${1 + i}`));
    await rejects(ips.allocateNext(web), 'Full', 'range is full');
  });

  it('releases an address only for the service that holds it', async () => {
    const ips = new ClusterIPAllocator(parseCidr('10.96.0.0/24'), new ObjectStorage(newMemoryStorage()), '/registry');
    await ips.allocate('10.96.0.20', web);
    assert.equal(await ips.release('10.96.0.20', db), false);
    assert.equal(await ips.has('10.96.0.20'), true);
    assert.equal(await ips.release('10.96.0.20', web), true);
    assert.equal(await ips.has('10.96.0.20'), false);
    assert.equal(await ips.release('10.96.0.20', web), false, 'releasing a free address is a no-op');
    assert.equal(await ips.allocate('10.96.0.20', db), '10.96.0.20');
  });

  it('never hands out one address twice to allocators sharing a store', async () => {
    const storage = new ObjectStorage(newMemoryStorage());
    const a = new ClusterIPAllocator(parseCidr('10.0.0.0/27'), storage, '/registry');
    const b = new ClusterIPAllocator(parseCidr('10.0.0.0/27'), storage, '/registry', first);
    const results = await Promise.allSettled(
      Array.from({ length: 34 }, (_, i) => (i % 2 === 0 ? a : b).allocateNext({ namespace: 'default', name: `s${i}` })),
    );
    const ips = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.equal(ips.length, 30);
    assert.equal(new Set(ips).size, 30);
    assert.equal(results.filter((r) => r.status === 'rejected' && r.reason instanceof AllocationError && r.reason.reason === 'Full').length, 4);
  });

  it('allocates IPv6 addresses in canonical form, the last address included', async () => {
    const ips = new ClusterIPAllocator(parseCidr('fd00:10:96::/124'), new ObjectStorage(newMemoryStorage()), '/registry', first);
    assert.equal(ips.family, 'IPv6');
    assert.equal(ips.size, 15n);
    assert.equal(await ips.allocate('fd00:10:96:0:0:0:0:f', web), 'fd00:10:96::f');
    assert.equal(await ips.allocateNext(db), 'fd00:10:96::1');
  });
});
