import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import { Code } from '../../framework/status.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { ERR_REASON, NAME, NodeName, newNodeName } from './node-name.js';

describe('NodeName', () => {
  const plugin = newNodeName(undefined, makeHandle()) as NodeName;

  it('is named as upstream', () => {
    assert.equal(plugin.name, NAME);
    assert.equal(NAME, 'NodeName');
  });

  it('skips pods that name no node, and narrows PreFilter to the named node', () => {
    assert.equal(plugin.preFilter(newState(), makePod('p')).status?.code, Code.Skip);
    const outcome = plugin.preFilter(newState(), makePod('p', { nodeName: 'n1' }));
    assert.deepEqual([...(outcome.result?.nodeNames ?? [])], ['n1']);
    assert.equal(outcome.status, undefined);
  });

  it('fits the named node only, rejecting others as unresolvable with the upstream reason', () => {
    const pod = makePod('p', { nodeName: 'n1' });
    assert.equal(plugin.filter(newState(), pod, makeNodeInfo(makeNode('n1'))), undefined);
    const status = plugin.filter(newState(), pod, makeNodeInfo(makeNode('n2')));
    assert.equal(status?.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(status?.reasons, ["node(s) didn't match the requested node name"]);
    assert.equal(ERR_REASON, status?.message());
    assert.equal(plugin.filter(newState(), makePod('q'), makeNodeInfo(makeNode('n2'))), undefined);
  });

  it('re-queues on Node Add only when the added node is the named one', () => {
    const [reg] = plugin.eventsToRegister();
    assert.equal(reg?.event.resource, 'Node');
    assert.equal(reg?.event.actionType, ActionType.Add);
    const pod = makePod('p', { nodeName: 'n1' });
    assert.equal(reg?.hint?.(pod, undefined, makeNode('n1')), QueueingHint.Queue);
    assert.equal(reg?.hint?.(pod, undefined, makeNode('n2')), QueueingHint.Skip);
  });
});
