import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeInfo } from '../../framework/node-info.js';
import type { Pod } from '../../framework/types.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { ImageLocality, MAX_CONTAINER_THRESHOLD, MIN_THRESHOLD, NAME, calculatePriority, newImageLocality, normalizedImageName } from './image-locality.js';

const MB = 1024 * 1024;

function nodeWith(name: string, images: Record<string, { size: number; numNodes: number }>): NodeInfo {
  const info = makeNodeInfo(makeNode(name));
  for (const [image, state] of Object.entries(images)) info.imageStates.set(image, { ...state });
  return info;
}

const podWith = (...images: string[]): Pod => makePod('p', { containers: images.map((image, i) => ({ name: `c${i}`, image })) });

describe('ImageLocality', () => {
  it('is named as upstream', () => assert.equal(NAME, 'ImageLocality'));

  it('normalizes image names by adding :latest when there is no tag', () => {
    assert.equal(normalizedImageName('nginx'), 'nginx:latest');
    assert.equal(normalizedImageName('nginx:1.27'), 'nginx:1.27');
    assert.equal(normalizedImageName('registry:5000/app'), 'registry:5000/app:latest');
    assert.equal(normalizedImageName('registry:5000/app:v1'), 'registry:5000/app:v1');
    assert.equal(normalizedImageName('gcr.io/x/app@sha256:abc'), 'gcr.io/x/app@sha256:abc');
  });

  it('maps the summed sizes between 23 MB and 1000 MB per container to 0..100', () => {
    assert.equal(calculatePriority(0, 1), 0);
    assert.equal(calculatePriority(MIN_THRESHOLD, 1), 0);
    assert.equal(calculatePriority(MAX_CONTAINER_THRESHOLD, 1), 100);
    assert.equal(calculatePriority(5 * MAX_CONTAINER_THRESHOLD, 2), 100);
    assert.equal(calculatePriority(500 * MB, 1), Math.trunc((100 * (500 - 23)) / (1000 - 23)));
    assert.equal(calculatePriority(0, 0), 0);
  });

  it('scores nodes by the images they hold, scaled by how many nodes hold them', () => {
    const n1 = nodeWith('n1', { 'app:latest': { size: 500 * MB, numNodes: 1 }, 'side:v1': { size: 250 * MB, numNodes: 2 } });
    const n2 = nodeWith('n2', { 'side:v1': { size: 250 * MB, numNodes: 2 } });
    const n3 = nodeWith('n3', {});
    const nodes = [n1, n2, n3];
    const plugin = newImageLocality(undefined, makeHandle(nodes)) as ImageLocality;
    const pod = podWith('app', 'side:v1');
    const state = newState();
    const scores = nodes.map((n) => plugin.score(state, pod, n));
    // n1: 500/3 + 250·2/3 = 333.33 MB; n2: 166.67 MB; two containers → max 2000 MB
    const sum1 = Math.trunc((500 * MB) / 3) + Math.trunc((250 * MB * 2) / 3);
    const sum2 = Math.trunc((250 * MB * 2) / 3);
    assert.deepEqual(scores, [calculatePriority(sum1, 2), calculatePriority(sum2, 2), 0]);
    assert.deepEqual(scores, [15, 7, 0]);
    // Init containers count too.
    const withInit = makePod('q', { initContainers: [{ name: 'i', image: 'app' }], containers: [{ name: 'c', image: 'other' }] });
    assert.equal(plugin.score(newState(), withInit, n1), calculatePriority(Math.trunc((500 * MB) / 3), 2));
    assert.equal(plugin.scoreExtensions(), undefined);
  });

  it('scores 0 when the snapshot is empty', () => {
    const plugin = newImageLocality(undefined, makeHandle([])) as ImageLocality;
    assert.equal(plugin.score(newState(), podWith('app'), nodeWith('n', { 'app:latest': { size: 900 * MB, numNodes: 1 } })), 0);
  });
});
