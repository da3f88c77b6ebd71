import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addPluginStatus, FitError, fitErrorMessage, newDiagnosis } from './fit-error.js';
import { NodeToStatus } from './node-to-status.js';
import { Code, pending, Status, unresolvable, unschedulable } from './status.js';

const TAINT = 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }';

describe('FitError message', () => {
  it('counts the reasons of every node, sorted, then the PostFilter message', () => {
    const statuses = new NodeToStatus();
    statuses.set('cp', unschedulable(TAINT));
    statuses.set('w1', unschedulable('Insufficient cpu'));
    statuses.set('w2', unschedulable('Insufficient cpu'));
    const diagnosis = newDiagnosis(statuses);
    diagnosis.postFilterMsg = 'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    assert.equal(
      fitErrorMessage(3, diagnosis),
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    );
  });

  it('counts each reason of a node with several reasons', () => {
    const statuses = new NodeToStatus();
    statuses.set('a', unschedulable('Insufficient cpu', 'Insufficient memory'));
    statuses.set('b', unschedulable('Insufficient memory'));
    assert.equal(fitErrorMessage(2, newDiagnosis(statuses)), '0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.');
  });

  it('sorts as strings: the count comes first, so "10 x" sorts before "2 y"', () => {
    const statuses = new NodeToStatus();
    for (let i = 0; i < 10; i++) statuses.set(`a${i}`, unschedulable('node(s) didn\'t match Pod\'s node affinity/selector'));
    statuses.set('b0', unschedulable('Insufficient cpu'));
    statuses.set('b1', unschedulable('Insufficient cpu'));
    assert.equal(fitErrorMessage(12, newDiagnosis(statuses)), '0/12 nodes are available: 10 node(s) didn\'t match Pod\'s node affinity/selector, 2 Insufficient cpu.');
  });

  it('counts the nodes a PreFilter result excluded with the absent-nodes status', () => {
    const statuses = new NodeToStatus(unresolvable('node(s) didn\'t satisfy plugin(s) [NodeAffinity]'));
    statuses.set('a', unschedulable('Insufficient cpu'));
    assert.equal(fitErrorMessage(4, newDiagnosis(statuses)), '0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn\'t satisfy plugin(s) [NodeAffinity].');
  });

  it('uses only the PreFilter message when a PreFilter rejected the pod', () => {
    const status = unresolvable('node(s) didn\'t match pod topology spread constraints (missing required label)');
    const diagnosis = newDiagnosis(new NodeToStatus(status));
    diagnosis.preFilterMsg = status.message();
    diagnosis.postFilterMsg = 'preemption: not eligible due to preemptionPolicy=Never.';
    assert.equal(
      fitErrorMessage(3, diagnosis),
      '0/3 nodes are available: node(s) didn\'t match pod topology spread constraints (missing required label). preemption: not eligible due to preemptionPolicy=Never.',
    );
  });

  it('is the message of a FitError, computed when read (the PostFilter message comes later)', () => {
    const statuses = new NodeToStatus();
    statuses.set('a', unschedulable('Insufficient cpu'));
    const diagnosis = newDiagnosis(statuses);
    const error = new FitError('default/p', 1, diagnosis);
    assert.equal(error.message, '0/1 nodes are available: 1 Insufficient cpu.');
    diagnosis.postFilterMsg = 'preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.';
    assert.equal(error.message, '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
    assert.equal(new Status(Code.Unschedulable, [], error).message(), error.message);
  });

  it('records rejecting plugins as unschedulable or pending, and ignores others', () => {
    const diagnosis = newDiagnosis(new NodeToStatus());
    addPluginStatus(diagnosis, unschedulable('x').withPlugin('A'));
    addPluginStatus(diagnosis, unresolvable('x').withPlugin('B'));
    addPluginStatus(diagnosis, pending('x').withPlugin('C'));
    addPluginStatus(diagnosis, new Status(Code.Error, ['boom']).withPlugin('D'));
    addPluginStatus(diagnosis, unschedulable('no plugin'));
    assert.deepEqual([...diagnosis.unschedulablePlugins], ['A', 'B']);
    assert.deepEqual([...diagnosis.pendingPlugins], ['C']);
  });
});
