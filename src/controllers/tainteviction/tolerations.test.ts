import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toleratesTaint } from '../../api/core/v1/toleration.js';
import { matchingTolerations, minTolerationMs } from './tolerations.js';

const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };

describe('tolerations of NoExecute taints', () => {
  it('matches as upstream: effect and key when set, Equal compares values, Exists anything', () => {
    assert.equal(toleratesTaint({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }, unreachable), true);
    assert.equal(toleratesTaint({ operator: 'Exists' }, unreachable), true);
    assert.equal(toleratesTaint({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoSchedule' }, unreachable), false);
    assert.equal(toleratesTaint({ key: 'other', operator: 'Exists' }, unreachable), false);
    assert.equal(toleratesTaint({ key: 'k', value: 'v' }, { key: 'k', value: 'v', effect: 'NoExecute' }), true);
    assert.equal(toleratesTaint({ key: 'k', operator: 'Equal', value: 'w' }, { key: 'k', value: 'v', effect: 'NoExecute' }), false);
    assert.equal(toleratesTaint({ key: 'k', operator: 'Bogus' }, { key: 'k', effect: 'NoExecute' }), false);
  });

  it('needs every taint tolerated, and takes the shortest tolerationSeconds', () => {
    const t300 = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
    const t5 = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 };
    const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
    assert.deepEqual(matchingTolerations([unreachable, notReady], [t300]), { allTolerated: false, used: [] });
    const { allTolerated, used } = matchingTolerations([unreachable, notReady], [t300, t5]);
    assert.equal(allTolerated, true);
    assert.equal(minTolerationMs(used), 5000);
    assert.equal(minTolerationMs([{ operator: 'Exists' }]), -1, 'forever');
    assert.equal(minTolerationMs([{ operator: 'Exists', tolerationSeconds: 0 }, t300]), 0);
    assert.equal(minTolerationMs([]), 0);
  });
});
