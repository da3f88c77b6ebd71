import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toleratesTaint } from '../../api/core/v1/toleration.js';
import { fitsNodeAffinity, nodeShouldRunDaemonPod, untoleratedTaint } from './node-eligibility.js';
import { addDaemonPodTolerations } from './tolerations.js';
import { affinityForNode, targetNodeName } from './node-binding.js';
import { daemonSet, daemonPod, node } from './testing/fixtures.js';
import type { PodSpec } from 'kubernetes-types/core/v1.js';

const spec = (extra: Partial<PodSpec>): PodSpec => ({ containers: [], ...extra });

describe('DaemonSet node eligibility', () => {
  it('runs on a plain node, not on one with an untolerated NoSchedule taint', () => {
    const ds = daemonSet();
    assert.deepEqual(nodeShouldRunDaemonPod(node('a'), ds), { shouldRun: true, shouldContinueRunning: true });
    const tainted = node('b', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] });
    assert.deepEqual(nodeShouldRunDaemonPod(tainted, ds), { shouldRun: false, shouldContinueRunning: true });
  });

  it('evicts under an untolerated NoExecute taint, and stays with a toleration', () => {
    const taint = { key: 'dedicated', value: 'db', effect: 'NoExecute' };
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', { taints: [taint] }), daemonSet()), { shouldRun: false, shouldContinueRunning: false });
    const tolerant = daemonSet({
      spec: {
        template: { metadata: { labels: { app: 'agent' } }, spec: spec({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db' }] }) },
      },
    });
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', { taints: [taint] }), tolerant), { shouldRun: true, shouldContinueRunning: true });
  });

  it('tolerates the node-problem taints automatically (network-unavailable only with hostNetwork)', () => {
    const ds = daemonSet();
    for (const key of ['not-ready', 'unreachable']) {
      assert.equal(nodeShouldRunDaemonPod(node('a', { taints: [{ key: `node.kubernetes.io/${key}`, effect: 'NoExecute' }] }), ds).shouldRun, true);
    }
    for (const key of ['disk-pressure', 'memory-pressure', 'pid-pressure', 'unschedulable']) {
      assert.equal(nodeShouldRunDaemonPod(node('a', { taints: [{ key: `node.kubernetes.io/${key}`, effect: 'NoSchedule' }] }), ds).shouldRun, true);
    }
    const network = node('a', { taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }] });
    assert.equal(nodeShouldRunDaemonPod(network, ds).shouldRun, false);
    const host = daemonSet({ spec: { template: { metadata: { labels: { app: 'agent' } }, spec: spec({ hostNetwork: true }) } } });
    assert.equal(nodeShouldRunDaemonPod(network, host).shouldRun, true);
  });

  it('replaces a matching toleration that has tolerationSeconds with the forever one', () => {
    const s = spec({ tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] });
    addDaemonPodTolerations(s);
    const unreachable = s.tolerations!.filter((t) => t.key === 'node.kubernetes.io/unreachable');
    assert.deepEqual(unreachable, [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]);
    assert.equal(s.tolerations!.length, 6);
  });

  it('honours nodeSelector, required node affinity and a template nodeName', () => {
    const linux = node('a', { labels: { os: 'linux', size: '8' } });
    const windows = node('b', { labels: { os: 'windows' } });
    const selecting = daemonSet({ spec: { template: { metadata: { labels: { app: 'agent' } }, spec: spec({ nodeSelector: { os: 'linux' } }) } } });
    assert.equal(nodeShouldRunDaemonPod(linux, selecting).shouldRun, true);
    assert.deepEqual(nodeShouldRunDaemonPod(windows, selecting), { shouldRun: false, shouldContinueRunning: false });
    const pinned = daemonSet({ spec: { template: { metadata: { labels: { app: 'agent' } }, spec: spec({ nodeName: 'b' }) } } });
    assert.equal(nodeShouldRunDaemonPod(linux, pinned).shouldRun, false);
    assert.equal(nodeShouldRunDaemonPod(windows, pinned).shouldRun, true);
    const term = (e: object) => spec({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [e] } } } });
    assert.equal(fitsNodeAffinity(term({ matchExpressions: [{ key: 'size', operator: 'Gt', values: ['4'] }] }), linux), true);
    assert.equal(fitsNodeAffinity(term({ matchExpressions: [{ key: 'size', operator: 'Lt', values: ['4'] }] }), linux), false);
    assert.equal(fitsNodeAffinity(term({ matchExpressions: [{ key: 'size', operator: 'Gt', values: ['x'] }] }), linux), false);
    assert.equal(fitsNodeAffinity(term({ matchExpressions: [{ key: 'os', operator: 'NotIn', values: ['windows'] }] }), linux), true);
    assert.equal(fitsNodeAffinity(term({ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }), linux), true);
    assert.equal(fitsNodeAffinity(term({ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }), linux), false);
    assert.equal(fitsNodeAffinity(term({ matchExpressions: [{ key: 'os', operator: 'Bogus' }] }), linux), false);
    assert.equal(fitsNodeAffinity(term({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }), linux), true);
    assert.equal(fitsNodeAffinity(term({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a'] }] }), linux), false);
    assert.equal(fitsNodeAffinity(term({ matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['a'] }] }), linux), false);
    assert.equal(fitsNodeAffinity(term({}), linux), false);
  });

  it('matches tolerations as upstream: empty key with Exists tolerates everything, effect must match when given', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
    assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true);
    assert.equal(toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint), false);
    assert.equal(toleratesTaint({ key: 'k', value: 'v' }, taint), true);
    assert.equal(toleratesTaint({ key: 'k', value: 'w' }, taint), false);
    assert.equal(toleratesTaint({ key: 'k', operator: 'Weird' }, taint), false);
    assert.equal(untoleratedTaint([{ key: 'x', effect: 'PreferNoSchedule' }], [], ['NoSchedule']), undefined);
  });
});

describe('DaemonSet pod binding', () => {
  it('pins a pod to its node through matchFields on metadata.name, keeping other affinity', () => {
    const affinity = affinityForNode(
      { podAffinity: {}, nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'os', operator: 'In', values: ['linux'] }] }] } } },
      'n1',
    );
    assert.deepEqual(affinity, {
      podAffinity: {},
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } },
    });
  });

  it('reads the target node from nodeName, else from the affinity', () => {
    assert.equal(targetNodeName(daemonPod('p', 'n1')), 'n1');
    assert.equal(targetNodeName(daemonPod('p', 'n2', { bound: false })), 'n2');
    const loose = daemonPod('p', 'n1', { bound: false });
    loose.spec!.affinity = undefined as never;
    delete loose.spec!.affinity;
    assert.equal(targetNodeName(loose), undefined);
    const two = daemonPod('p', 'n1', { bound: false });
    two.spec!.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms[0]!.matchFields![0]!.values = ['a', 'b'];
    assert.equal(targetNodeName(two), undefined);
  });
});
