import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PodInfo, type Pod } from '../framework/types.js';
import { Nominator } from './nominator.js';

function pod(name: string, nominated?: string, nodeName?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [{ name: 'c' }], ...(nodeName === undefined ? {} : { nodeName }) },
    status: nominated === undefined ? {} : { nominatedNodeName: nominated },
  };
}

const names = (infos: readonly PodInfo[]): string[] => infos.map((p) => p.pod.metadata.name ?? '');

describe('Nominator', () => {
  it('nominates to the given node, or to status.nominatedNodeName', () => {
    const n = new Nominator();
    n.addNominatedPod(new PodInfo(pod('a')), 'node-1');
    n.addNominatedPod(new PodInfo(pod('b', 'node-1')));
    n.addNominatedPod(new PodInfo(pod('c')));
    assert.deepEqual(names(n.nominatedPodsForNode('node-1')), ['a', 'b']);
    assert.equal(n.nominatedNodeFor('uid-c'), undefined);
    assert.deepEqual(n.nominatedPodsForNode('node-2'), []);
  });

  it('moves a pod nominated twice, and removes it with an empty node name', () => {
    const n = new Nominator();
    n.addNominatedPod(new PodInfo(pod('a')), 'node-1');
    n.addNominatedPod(new PodInfo(pod('a')), 'node-2');
    assert.deepEqual(names(n.nominatedPodsForNode('node-1')), []);
    assert.deepEqual(names(n.nominatedPodsForNode('node-2')), ['a']);
    n.addNominatedPod(new PodInfo(pod('a', 'node-2')), '');
    assert.deepEqual(names(n.nominatedPodsForNode('node-2')), []);
    assert.equal(n.nominatedNodeFor('uid-a'), undefined);
  });

  it('says whether any pod is nominated (the Filter fast path)', () => {
    const n = new Nominator();
    assert.equal(n.hasNominatedPods(), false);
    n.addNominatedPod(new PodInfo(pod('a')), 'node-1');
    assert.equal(n.hasNominatedPods(), true);
    n.deleteNominatedPodIfExists(pod('a'));
    assert.equal(n.hasNominatedPods(), false);
  });

  it('does not nominate a bound pod, nor one the lister no longer knows', () => {
    const n = new Nominator();
    n.addNominatedPod(new PodInfo(pod('a', undefined, 'node-9')), 'node-1');
    assert.deepEqual(n.nominatedPodsForNode('node-1'), []);
    const known = new Map([['b', pod('b')]]);
    const withLister = new Nominator({ currentPod: (_ns, name) => known.get(name) });
    withLister.addNominatedPod(new PodInfo(pod('b')), 'node-1');
    withLister.addNominatedPod(new PodInfo(pod('gone')), 'node-1');
    assert.deepEqual(names(withLister.nominatedPodsForNode('node-1')), ['b']);
  });

  it('deletes, and ignores a pod it does not hold', () => {
    const n = new Nominator();
    n.addNominatedPod(new PodInfo(pod('a')), 'node-1');
    n.deleteNominatedPodIfExists(pod('x'));
    n.deleteNominatedPodIfExists(pod('a'));
    assert.deepEqual(n.nominatedPodsForNode('node-1'), []);
  });

  it('keeps the in-memory nomination across an update without nominatedNodeName', () => {
    const n = new Nominator();
    n.addNominatedPod(new PodInfo(pod('a')), 'node-1');
    const updated = new PodInfo({ ...pod('a'), metadata: { ...pod('a').metadata, labels: { x: 'y' } } });
    n.updateNominatedPod(pod('a'), updated);
    assert.equal(n.nominatedPodsForNode('node-1')[0], updated, 'the pod pointer is updated');
  });

  it('follows the pod when an update sets, changes or clears nominatedNodeName', () => {
    const n = new Nominator();
    n.addNominatedPod(new PodInfo(pod('a')), 'node-1');
    n.updateNominatedPod(pod('a'), new PodInfo(pod('a', 'node-2')));
    assert.deepEqual(names(n.nominatedPodsForNode('node-2')), ['a']);
    assert.deepEqual(names(n.nominatedPodsForNode('node-1')), []);
    n.updateNominatedPod(pod('a', 'node-2'), new PodInfo(pod('a')));
    assert.deepEqual(names(n.nominatedPodsForNode('node-2')), []);
  });
});
