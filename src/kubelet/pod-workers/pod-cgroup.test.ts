import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import type { Pod } from '../types.js';
import { listPodCgroups, OrphanedPodCgroups, podCgroupHasProcesses, podCgroupParent, podQOS, removePodCgroup } from './pod-cgroup.js';

const pod = (resources: Record<string, Record<string, string>> | undefined, status: Pod['status'] = {}): Pod =>
  ({ metadata: { name: 'p', namespace: 'ns', uid: 'u-1' }, spec: { containers: [{ name: 'a', image: 'img', ...(resources !== undefined ? { resources } : {}) }] }, status }) as Pod;

describe('the pod cgroup (cgroupfs layout, per QoS class)', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-pod-cgroup-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('puts Guaranteed pods under /kubepods, the others under their class', () => {
    assert.equal(podCgroupParent(pod({ limits: { cpu: '100m', memory: '64Mi' }, requests: { cpu: '100m', memory: '64Mi' } })), '/kubepods/podu-1');
    assert.equal(podCgroupParent(pod({ requests: { cpu: '100m' } })), '/kubepods/burstable/podu-1');
    assert.equal(podCgroupParent(pod({ limits: { cpu: '100m', memory: '64Mi' }, requests: { cpu: '50m' } })), '/kubepods/burstable/podu-1');
    assert.equal(podCgroupParent(pod(undefined)), '/kubepods/besteffort/podu-1');
  });

  it("takes the class the API server recorded in status.qosClass (it does not change when resources are resized)", () => {
    assert.equal(podQOS(pod({ requests: { cpu: '100m' } }, { qosClass: 'Guaranteed' })), 'Guaranteed');
    assert.equal(podCgroupParent(pod(undefined, { qosClass: 'Burstable' })), '/kubepods/burstable/podu-1');
    assert.equal(podQOS(pod(undefined, { qosClass: 'Nonsense' })), 'BestEffort');
  });

  it("removes the pod's directories deepest first in every hierarchy, leaving the QoS level and anything it cannot remove", async () => {
    for (const h of ['memory', 'cpu', 'unified']) mkdirSync(join(root, h, 'kubepods', 'besteffort', 'podu-1', 'sandbox-id'), { recursive: true });
    mkdirSync(join(root, 'kubepods', 'besteffort', 'podu-1', 'c1'), { recursive: true });
    mkdirSync(join(root, 'pids', 'kubepods', 'besteffort', 'podu-1', 'busy'), { recursive: true });
    // A non-empty directory stands in for a cgroup that still holds processes (rmdir fails with EBUSY there).
    writeFileSync(join(root, 'pids', 'kubepods', 'besteffort', 'podu-1', 'busy', 'x'), '');
    await removePodCgroup('/kubepods/besteffort/podu-1', root);
    for (const h of ['memory', 'cpu', 'unified']) {
      assert.equal(existsSync(join(root, h, 'kubepods', 'besteffort', 'podu-1')), false, h);
      assert.equal(existsSync(join(root, h, 'kubepods', 'besteffort')), true, `${h}: the QoS level stays`);
    }
    assert.equal(existsSync(join(root, 'kubepods', 'besteffort', 'podu-1')), false, 'the unified hierarchy at the root');
    assert.equal(existsSync(join(root, 'pids', 'kubepods', 'besteffort', 'podu-1', 'busy')), true);
    await removePodCgroup('/kubepods/besteffort/absent', root);
    await removePodCgroup('/kubepods/../..', root);
    await removePodCgroup('/', root);
    await removePodCgroup('/kubepods/besteffort/podu-1', join(root, 'missing'));
    assert.equal(existsSync(join(root, 'memory')), true, 'nothing outside the pod cgroup goes');
  });

  describe('orphaned pod cgroups (the housekeeping sweep)', () => {
    const fake = mkdtempSync(join(tmpdir(), 'k8ts-orphan-cgroups-'));
    after(() => rmSync(fake, { recursive: true, force: true }));
    /** A pod cgroup with a container cgroup inside, in the given hierarchies. */
    const make = (parent: string, hierarchies = ['memory', 'pids']): void => {
      for (const h of hierarchies) mkdirSync(join(fake, h, parent, 'container-id'), { recursive: true });
    };
    const exists = (parent: string, h = 'memory'): boolean => existsSync(join(fake, h, parent));
    const none = async (): Promise<ReadonlySet<string>> => new Set();
    // Every test starts from an empty cgroup root.
    beforeEach(() => {
      rmSync(fake, { recursive: true, force: true });
      mkdirSync(fake);
    });

    it('lists pod cgroups under kubepods and its QoS classes in every hierarchy, with their UIDs', async () => {
      const root = mkdtempSync(join(tmpdir(), 'k8ts-list-cgroups-'));
      try {
        for (const dir of ['memory/kubepods/poda', 'memory/kubepods/burstable/podb', 'pids/kubepods/besteffort/podc', 'kubepods/besteffort/podd', 'memory/kubepods/besteffort/notapod', 'memory/kubepods/pod', 'memory/other/pode'])
          mkdirSync(join(root, dir), { recursive: true });
        writeFileSync(join(root, 'memory', 'kubepods', 'podfile'), '');
        assert.deepEqual(
          [...(await listPodCgroups(root))].sort(),
          [
            ['/kubepods/besteffort/podc', 'c'],
            ['/kubepods/besteffort/podd', 'd'],
            ['/kubepods/burstable/podb', 'b'],
            ['/kubepods/poda', 'a'],
          ],
        );
        assert.deepEqual([...(await listPodCgroups(join(root, 'missing')))], []);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });

    it('tells a pod cgroup with a process in it (at any depth, in any hierarchy) from an empty one', async () => {
      make('/kubepods/burstable/podbusy');
      make('/kubepods/burstable/podidle');
      writeFileSync(join(fake, 'memory', 'kubepods', 'burstable', 'podidle', 'container-id', 'cgroup.procs'), '\n');
      assert.equal(await podCgroupHasProcesses('/kubepods/burstable/podbusy', fake), false);
      writeFileSync(join(fake, 'pids', 'kubepods', 'burstable', 'podbusy', 'container-id', 'cgroup.procs'), '4242\n');
      assert.equal(await podCgroupHasProcesses('/kubepods/burstable/podbusy', fake), true);
      assert.equal(await podCgroupHasProcesses('/kubepods/burstable/podidle', fake), false);
      assert.equal(await podCgroupHasProcesses('/kubepods/burstable/podabsent', fake), false);
      assert.equal(await podCgroupHasProcesses('/', fake), false);
    });

    it('removes a cgroup the second sweep in a row finds orphaned: pod unknown, nothing of it in the runtime, no process in it', async () => {
      make('/kubepods/besteffort/podghost');
      make('/kubepods/podguaranteed-ghost', ['cpu']);
      make('/kubepods/burstable/podknown');
      make('/kubepods/besteffort/podsandboxed');
      make('/kubepods/besteffort/podbusy');
      writeFileSync(join(fake, 'pids', 'kubepods', 'besteffort', 'podbusy', 'container-id', 'cgroup.procs'), '4242\n');
      const sweeper = new OrphanedPodCgroups(fake);
      const known = (uid: string): boolean => uid === 'known';
      const runtimePods = async (): Promise<ReadonlySet<string>> => new Set(['sandboxed']);

      assert.deepEqual(await sweeper.sweep(known, runtimePods), [], 'the first sweep only notes them');
      assert.ok(exists('/kubepods/besteffort/podghost'));
      const removed = await sweeper.sweep(known, runtimePods);
      assert.deepEqual(removed.sort(), ['/kubepods/besteffort/podghost', '/kubepods/podguaranteed-ghost']);
      for (const h of ['memory', 'pids']) {
        assert.equal(exists('/kubepods/besteffort/podghost', h), false, h);
        assert.ok(exists('/kubepods/besteffort', h), `${h}: the QoS cgroup stays`);
      }
      assert.equal(exists('/kubepods/podguaranteed-ghost', 'cpu'), false);
      assert.ok(exists('/kubepods/burstable/podknown'), "a known pod's cgroup stays");
      assert.ok(exists('/kubepods/besteffort/podsandboxed'), 'a cgroup whose pod still has a sandbox stays');
      assert.ok(exists('/kubepods/besteffort/podbusy', 'pids'), 'a cgroup with a process in it stays');

      // The process ends: the next sweep removes its cgroup (it stayed a candidate).
      rmSync(join(fake, 'pids', 'kubepods', 'besteffort', 'podbusy', 'container-id', 'cgroup.procs'));
      assert.deepEqual(await sweeper.sweep(known, runtimePods), ['/kubepods/besteffort/podbusy']);
      assert.equal(exists('/kubepods/besteffort/podbusy', 'pids'), false);
      assert.ok(exists('/kubepods/burstable/podknown') && exists('/kubepods/besteffort/podsandboxed'));
    });

    it("keeps a cgroup whose pod the kubelet came to know, or that a sweep in between did not find orphaned", async () => {
      make('/kubepods/besteffort/podlate');
      make('/kubepods/besteffort/podflapping');
      const sweeper = new OrphanedPodCgroups(fake);
      const knownNow = new Set<string>();
      const known = (uid: string): boolean => knownNow.has(uid);
      assert.deepEqual(await sweeper.sweep(known, none), []);
      knownNow.add('late');
      knownNow.add('flapping');
      assert.deepEqual(await sweeper.sweep(known, none), []);
      knownNow.delete('flapping');
      assert.deepEqual(await sweeper.sweep(known, none), [], 'orphaned again: a candidate anew');
      assert.ok(exists('/kubepods/besteffort/podlate') && exists('/kubepods/besteffort/podflapping'));
      assert.deepEqual(await sweeper.sweep(known, none), ['/kubepods/besteffort/podflapping']);
      assert.ok(exists('/kubepods/besteffort/podlate'));
    });

    it('asks the runtime only when some pod cgroup belongs to no known pod', async () => {
      const root = mkdtempSync(join(tmpdir(), 'k8ts-sweep-runtime-'));
      try {
        mkdirSync(join(root, 'memory', 'kubepods', 'podknown'), { recursive: true });
        let asked = 0;
        const runtimePods = async (): Promise<ReadonlySet<string>> => (asked++, new Set());
        const sweeper = new OrphanedPodCgroups(root);
        await sweeper.sweep(() => true, runtimePods);
        assert.equal(asked, 0);
        await sweeper.sweep(() => false, runtimePods);
        assert.equal(asked, 1);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  });
});
