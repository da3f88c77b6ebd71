import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schedulerArgs } from './server.js';

describe('k8ts server: the scheduler command line', () => {
  it('gives the scheduler its own kubeconfig and the free port, then the pass-through flags', () => {
    assert.deepEqual(schedulerArgs({ schedulerArg: ['--leader-elect-retry-period=1s'] }, '/d/pki/scheduler.kubeconfig', 40_001), {
      args: ['scheduler', '--kubeconfig', '/d/pki/scheduler.kubeconfig', '--secure-port', '40001', '--leader-elect-retry-period=1s'],
      port: 40_001,
    });
  });

  it('keeps a --secure-port given through --scheduler-arg, in either spelling', () => {
    assert.deepEqual(schedulerArgs({ schedulerArg: ['--secure-port=10259'] }, '/k', 40_001), { args: ['scheduler', '--kubeconfig', '/k', '--secure-port=10259'], port: 10259 });
    assert.deepEqual(schedulerArgs({ schedulerArg: ['--secure-port', '10300', '--v=2'] }, '/k', 40_001), {
      args: ['scheduler', '--kubeconfig', '/k', '--secure-port', '10300', '--v=2'],
      port: 10300,
    });
    assert.throws(() => schedulerArgs({ schedulerArg: ['--secure-port=http'] }, '/k', 40_001), /invalid port "http"/);
  });
});
