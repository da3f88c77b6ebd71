import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inLabelDomain, isKubeletLabel, isKubernetesLabel, labelNamespace } from './kubelet-labels.js';

describe('kubelet labels', () => {
  it('knows the kubelet labels and namespaces, and nothing else of kubernetes.io', () => {
    assert.equal(isKubeletLabel('kubernetes.io/hostname'), true);
    assert.equal(isKubeletLabel('topology.kubernetes.io/zone'), true);
    assert.equal(isKubeletLabel('kubelet.kubernetes.io/anything'), true);
    assert.equal(isKubeletLabel('sub.node.kubernetes.io/x'), true);
    assert.equal(isKubeletLabel('node-role.kubernetes.io/worker'), false);
    assert.equal(isKubeletLabel('example.com/rack'), false);
  });

  it('reads a label key\'s namespace and its domain', () => {
    assert.equal(labelNamespace('a.example.com/x'), 'a.example.com');
    assert.equal(labelNamespace('plain'), '');
    assert.equal(inLabelDomain('a.k8s.io', 'k8s.io'), true);
    assert.equal(inLabelDomain('notk8s.io', 'k8s.io'), false);
    assert.equal(isKubernetesLabel('node-role.kubernetes.io/worker'), true);
    assert.equal(isKubernetesLabel('example.com/rack'), false);
  });
});
