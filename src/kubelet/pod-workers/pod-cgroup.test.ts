import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Pod } from '../types.js';
import { podCgroupParent, podQOS, removePodCgroup } from './pod-cgroup.js';

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
});
