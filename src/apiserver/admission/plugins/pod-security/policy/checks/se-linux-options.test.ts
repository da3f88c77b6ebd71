import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { seLinuxOptions_1_0, seLinuxOptions_1_31 } from './se-linux-options.js';

describe('seLinuxOptions check', () => {
  it('allows the container types and a level', () => {
    const spec = specWith([container('a', { seLinuxOptions: { type: 'container_init_t', level: 's0:c1' } })], { securityContext: { seLinuxOptions: { type: 'container_t' } } });
    assert.equal(run(seLinuxOptions_1_0, spec).allowed, true);
  });
  it('allows container_engine_t from v1.31 only', () => {
    const spec = specWith([container('a', { seLinuxOptions: { type: 'container_engine_t' } })]);
    assert.equal(run(seLinuxOptions_1_31, spec).allowed, true);
    assert.deepEqual(run(seLinuxOptions_1_0, spec), {
      allowed: false,
      forbiddenReason: 'seLinuxOptions',
      forbiddenDetail: 'container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
    });
  });
  it('reports types, user and role', () => {
    const spec = specWith([container('a', { seLinuxOptions: { type: 'spc_t', role: 'r' } }), container('b', { seLinuxOptions: { type: 'unconfined_t' } })], {
      securityContext: { seLinuxOptions: { user: 'u' } },
    });
    assert.equal(
      run(seLinuxOptions_1_31, spec).forbiddenDetail,
      'pod and containers "a", "b" set forbidden securityContext.seLinuxOptions: types "spc_t", "unconfined_t"; user may not be set; role may not be set',
    );
  });
});
