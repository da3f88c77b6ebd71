import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSignificantPodUpdate } from './significant-update.js';

const c = (name: string, image = 'busybox') => ({ name, image });

describe('isSignificantPodUpdate', () => {
  it('ignores changes that keep containers and images', () => {
    assert.equal(isSignificantPodUpdate({ containers: [c('a')], activeDeadlineSeconds: 5 } as never, { containers: [c('a')] }), false);
  });
  it('notices a changed image in containers or init containers', () => {
    assert.equal(isSignificantPodUpdate({ containers: [c('a', 'nginx')] }, { containers: [c('a')] }), true);
    assert.equal(isSignificantPodUpdate({ containers: [c('a')], initContainers: [c('i', 'x')] }, { containers: [c('a')], initContainers: [c('i')] }), true);
  });
  it('notices added or removed containers', () => {
    assert.equal(isSignificantPodUpdate({ containers: [c('a'), c('b')] }, { containers: [c('a')] }), true);
    assert.equal(isSignificantPodUpdate({ containers: [c('a')] }, { containers: [c('a')], initContainers: [c('i')] }), true);
  });
  it('notices an added or re-imaged ephemeral container', () => {
    assert.equal(isSignificantPodUpdate({ containers: [c('a')], ephemeralContainers: [c('d')] }, { containers: [c('a')] }), true);
    assert.equal(isSignificantPodUpdate({ containers: [c('a')], ephemeralContainers: [c('d', 'x')] }, { containers: [c('a')], ephemeralContainers: [c('d')] }), true);
    assert.equal(isSignificantPodUpdate({ containers: [c('a')], ephemeralContainers: [c('d')] }, { containers: [c('a')], ephemeralContainers: [c('d')] }), false);
  });
});
