import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerSpec } from '../types.js';
import { containerResourceValue, withAllocatableLimits } from './resource-values.js';

const container: ContainerSpec = {
  name: 'c',
  image: 'x',
  resources: { requests: { cpu: '1', 'hugepages-2Mi': '4Mi' }, limits: { cpu: '0', memory: '1G' } },
};

describe('downward API resource values', () => {
  it('rounds cpu up from millicores and memory up from bytes, in units of the divisor', () => {
    const value = (resource: string, divisor?: string): string => containerResourceValue({ resource, ...(divisor !== undefined ? { divisor } : {}) }, container);
    assert.equal(value('requests.cpu'), '1');
    assert.equal(value('requests.cpu', '1m'), '1000');
    assert.equal(value('requests.cpu', '300m'), '4');
    assert.equal(value('limits.memory'), '1000000000');
    assert.equal(value('limits.memory', '1Mi'), '954');
    assert.equal(value('limits.memory', '0'), '1000000000');
    assert.equal(value('requests.hugepages-2Mi', '1Mi'), '4');
    assert.equal(value('requests.memory'), '0');
  });

  it('fills unset or zero cpu/memory/ephemeral-storage limits from the allocatable, nothing else', () => {
    const filled = withAllocatableLimits(container, { cpu: '8', memory: '2Gi', 'ephemeral-storage': '10Gi', pods: '110' });
    assert.deepEqual(filled.resources?.limits, { cpu: '8', memory: '1G', 'ephemeral-storage': '10Gi' });
    assert.deepEqual(withAllocatableLimits({ name: 'bare', image: 'x' }, undefined).resources?.limits, {});
    assert.deepEqual(container.resources?.limits, { cpu: '0', memory: '1G' }, 'the spec is not changed');
  });
});
