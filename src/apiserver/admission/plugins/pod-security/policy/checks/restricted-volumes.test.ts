import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { restrictedVolumes_1_0 } from './restricted-volumes.js';

describe('restrictedVolumes check', () => {
  it('allows the nine allowed volume sources', () => {
    const volumes = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'].map((s) => ({ name: s, [s]: {} }));
    assert.equal(run(restrictedVolumes_1_0, specWith([container('a')], { volumes })).allowed, true);
  });
  it('names one volume and its type', () => {
    assert.deepEqual(run(restrictedVolumes_1_0, specWith([container('a')], { volumes: [{ name: 'h', hostPath: { path: '/' } }] })), {
      allowed: false,
      forbiddenReason: 'restricted volume types',
      forbiddenDetail: 'volume "h" uses restricted volume type "hostPath"',
    });
  });
  it('names several volumes and sorted distinct types, unknown for none known', () => {
    const volumes = [{ name: 'n', nfs: { server: 's', path: '/' } }, { name: 'g', gitRepo: { repository: 'r' } }, { name: 'x' }, { name: 'n2', nfs: {} }];
    assert.equal(
      run(restrictedVolumes_1_0, specWith([container('a')], { volumes })).forbiddenDetail,
      'volumes "n", "g", "x", "n2" use restricted volume types "gitRepo", "nfs", "unknown"',
    );
  });
});
