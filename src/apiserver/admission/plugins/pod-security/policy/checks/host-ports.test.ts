import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { hostPorts_1_0 } from './host-ports.js';

describe('hostPorts check', () => {
  it('allows container ports without hostPort, and hostPort 0', () => {
    assert.equal(run(hostPorts_1_0, specWith([container('a', undefined, { ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 0 }] })])).allowed, true);
  });
  it('names one container and one port', () => {
    assert.deepEqual(run(hostPorts_1_0, specWith([container('a', undefined, { ports: [{ containerPort: 80, hostPort: 8080 }] })])), {
      allowed: false,
      forbiddenReason: 'hostPort',
      forbiddenDetail: 'container "a" uses hostPort 8080',
    });
  });
  it('pluralizes and sorts distinct ports as strings', () => {
    const spec = specWith([
      container('a', undefined, { ports: [{ containerPort: 80, hostPort: 9000 }, { containerPort: 81, hostPort: 10000 }] }),
      container('b', undefined, { ports: [{ containerPort: 80, hostPort: 9000 }] }),
    ]);
    assert.equal(run(hostPorts_1_0, spec).forbiddenDetail, 'containers "a", "b" use hostPorts 10000, 9000');
  });
});
