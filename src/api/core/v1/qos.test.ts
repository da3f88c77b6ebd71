import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podQOSClass } from './qos.js';

const pod = (spec: unknown): Pod => ({ spec }) as Pod;
const both = { cpu: '100m', memory: '64Mi' };

describe('podQOSClass', () => {
  it('BestEffort when nothing positive is requested or limited', () => {
    assert.equal(podQOSClass(pod(undefined)), 'BestEffort');
    assert.equal(podQOSClass(pod({ containers: null, initContainers: [] })), 'BestEffort');
    assert.equal(podQOSClass(pod({ containers: [{ resources: { requests: { cpu: '0', 'nvidia.com/gpu': '1' }, limits: null } }] })), 'BestEffort');
  });

  it('Guaranteed when every container limits cpu and memory and its requests (summed) equal the limits', () => {
    assert.equal(podQOSClass(pod({ containers: [{ resources: { limits: both } }] })), 'Burstable');
    assert.equal(podQOSClass(pod({ containers: [{ resources: { requests: both, limits: both } }] })), 'Guaranteed');
    assert.equal(podQOSClass(pod({ containers: [{ resources: { requests: { cpu: '0.1', memory: '64Mi' }, limits: both } }], initContainers: [{ resources: { requests: both, limits: both } }] })), 'Guaranteed');
    assert.equal(podQOSClass(pod({ containers: [{ resources: { requests: both, limits: both } }, { resources: { requests: { cpu: '1' }, limits: { cpu: '1' } } }] })), 'Burstable');
  });

  it('Burstable otherwise; pod-level resources, when present, decide alone', () => {
    assert.equal(podQOSClass(pod({ containers: [{ resources: { requests: { cpu: '100m' } } }] })), 'Burstable');
    assert.equal(podQOSClass(pod({ resources: { requests: both, limits: both }, containers: [{ resources: { requests: { cpu: '1' } } }] })), 'Guaranteed');
    assert.equal(podQOSClass(pod({ resources: { limits: { cpu: '1' } }, containers: [{ resources: { requests: both, limits: both } }] })), 'Burstable');
  });
});
