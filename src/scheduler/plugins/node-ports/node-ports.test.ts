import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerPort } from 'kubernetes-types/core/v1.js';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import { Code } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { NAME, NodePorts, newNodePorts } from './node-ports.js';

function withPorts(name: string, ports: ContainerPort[], nodeName?: string): Pod {
  return makePod(name, { containers: [{ name: 'c', image: 'x', ports }], ...(nodeName === undefined ? {} : { nodeName }) });
}

describe('NodePorts', () => {
  const plugin = newNodePorts(undefined, makeHandle()) as NodePorts;

  it('is named as upstream', () => assert.equal(NAME, 'NodePorts'));

  it('skips pods without host ports', () => {
    assert.equal(plugin.preFilter(newState(), makePod('p')).status?.code, Code.Skip);
    assert.equal(plugin.preFilter(newState(), withPorts('p', [{ containerPort: 80 }])).status?.code, Code.Skip);
  });

  it('rejects a node where a wanted host port is taken, as upstream conflicts are counted', () => {
    const cases: Array<[ContainerPort, ContainerPort, boolean]> = [
      [{ containerPort: 80, hostPort: 8080 }, { containerPort: 80, hostPort: 8080 }, false],
      [{ containerPort: 80, hostPort: 8080, protocol: 'UDP' }, { containerPort: 80, hostPort: 8080 }, true],
      [{ containerPort: 80, hostPort: 8080, hostIP: '127.0.0.1' }, { containerPort: 80, hostPort: 8080, hostIP: '127.0.0.2' }, true],
      [{ containerPort: 80, hostPort: 8080, hostIP: '127.0.0.1' }, { containerPort: 80, hostPort: 8080 }, false],
      [{ containerPort: 80, hostPort: 8080 }, { containerPort: 80, hostPort: 8080, hostIP: '127.0.0.1' }, false],
      [{ containerPort: 80, hostPort: 8081 }, { containerPort: 80, hostPort: 8080 }, true],
    ];
    for (const [want, used, fits] of cases) {
      const pod = withPorts('p', [want]);
      const state = newState();
      assert.equal(plugin.preFilter(state, pod).status, undefined);
      const status = plugin.filter(state, pod, makeNodeInfo(makeNode('n'), withPorts('q', [used], 'n')));
      if (fits) assert.equal(status, undefined, JSON.stringify([want, used]));
      else {
        assert.equal(status?.code, Code.Unschedulable);
        assert.deepEqual(status?.reasons, ["node(s) didn't have free ports for the requested pod ports"]);
      }
    }
  });

  it('returns an Error status when PreFilter did not run', () => {
    const status = plugin.filter(newState(), withPorts('p', [{ containerPort: 1, hostPort: 1 }]), makeNodeInfo(makeNode('n')));
    assert.equal(status?.code, Code.Error);
  });

  it('re-queues on the deletion of an assigned pod that held a wanted port, and on Node Add', () => {
    const [podEvent, nodeEvent] = plugin.eventsToRegister();
    assert.equal(podEvent?.event.resource, 'Pod');
    assert.equal(podEvent?.event.actionType, ActionType.Delete);
    assert.equal(nodeEvent?.event.resource, 'Node');
    assert.equal(nodeEvent?.event.actionType, ActionType.Add);
    assert.equal(nodeEvent?.hint, undefined);
    const pod = withPorts('p', [{ containerPort: 80, hostPort: 8080 }]);
    assert.equal(podEvent?.hint?.(pod, withPorts('d', [{ containerPort: 80, hostPort: 8080 }], 'n'), undefined), QueueingHint.Queue);
    assert.equal(podEvent?.hint?.(pod, withPorts('d', [{ containerPort: 80, hostPort: 8080 }]), undefined), QueueingHint.Skip);
    assert.equal(podEvent?.hint?.(pod, withPorts('d', [{ containerPort: 80, hostPort: 9090 }], 'n'), undefined), QueueingHint.Skip);
    assert.equal(podEvent?.hint?.(pod, makePod('d', { nodeName: 'n' }), undefined), QueueingHint.Skip);
  });
});
