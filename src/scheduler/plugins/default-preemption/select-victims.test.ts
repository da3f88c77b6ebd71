import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CycleState } from '../../framework/cycle-state.js';
import type { PodDisruptionBudget } from '../../framework/preemption/evaluator.js';
import { Code, Status } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { NO_VICTIMS_FOUND, selectVictimsOnNode } from './select-victims.js';
import { makeNode, makeNodeInfo, makePod, newFakeHandle, PRE_FILTER_CALLS_KEY, PreFilterCalls } from './testing/fake-handle.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const names = (pods: readonly Pod[]): string[] => pods.map((p) => p.metadata.name ?? '');

function run(pods: Pod[], preemptor: Pod, options: { cpu?: string; pdbs?: PodDisruptionBudget[]; removePodStatus?: Status } = {}) {
  const nodeInfo = makeNodeInfo(makeNode('n1', { cpu: options.cpu ?? '4' }), pods);
  const handle = newFakeHandle([nodeInfo]);
  handle.framework.removePodStatus = options.removePodStatus;
  const state = new CycleState();
  state.write(PRE_FILTER_CALLS_KEY, new PreFilterCalls());
  const result = selectVictimsOnNode({ framework: handle.framework, state, pod: preemptor, nodeInfo, pdbs: options.pdbs ?? [], now: NOW });
  return { result, nodeInfo, state };
}

function pdb(allowed: number): PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } } },
    status: { disruptionsAllowed: allowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
  };
}

describe('selectVictimsOnNode', () => {
  it('removes only lower-priority pods and reprieves the most important ones that still leave room', () => {
    const pods = [
      makePod('low1', { priority: 1, cpu: '1', nodeName: 'n1' }),
      makePod('mid', { priority: 5, cpu: '1', nodeName: 'n1' }),
      makePod('low2', { priority: 2, cpu: '1', nodeName: 'n1' }),
      makePod('high', { priority: 20, cpu: '1', nodeName: 'n1' }),
    ];
    const { result, nodeInfo, state } = run(pods, makePod('preemptor', { priority: 10, cpu: '2' }));
    assert.equal(result.status, undefined);
    assert.deepEqual(names(result.victims), ['low2', 'low1']);
    assert.equal(result.numPDBViolations, 0);
    // The copy it was given is left without the victims; the PreFilter extensions heard every removal and re-addition.
    assert.deepEqual(names(nodeInfo.pods.map((i) => i.pod)).sort(), ['high', 'mid']);
    const calls = state.read<PreFilterCalls>(PRE_FILTER_CALLS_KEY)!;
    assert.equal(calls.removed, 3 + 2);
    assert.equal(calls.added, 3);
  });

  it('among equal priorities, keeps the pod that started first', () => {
    const pods = [
      makePod('young', { priority: 1, cpu: '2', nodeName: 'n1', startTime: '2025-06-01T00:00:00Z' }),
      makePod('old', { priority: 1, cpu: '2', nodeName: 'n1', startTime: '2025-01-01T00:00:00Z' }),
    ];
    const { result } = run(pods, makePod('preemptor', { priority: 10, cpu: '2' }));
    assert.deepEqual(names(result.victims), ['young']);
  });

  it('says UnschedulableAndUnresolvable when the node has no lower-priority pod', () => {
    const { result } = run([makePod('same', { priority: 10, cpu: '4', nodeName: 'n1' })], makePod('preemptor', { priority: 10, cpu: '1' }));
    assert.equal(result.status?.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(result.status?.reasons, [NO_VICTIMS_FOUND]);
    assert.deepEqual(result.victims, []);
  });

  it('returns the filter status when the pod does not fit even without every lower-priority pod', () => {
    const pods = [makePod('high', { priority: 20, cpu: '3', nodeName: 'n1' }), makePod('low', { priority: 1, cpu: '1', nodeName: 'n1' })];
    const { result } = run(pods, makePod('preemptor', { priority: 10, cpu: '2' }));
    assert.equal(result.status?.code, Code.Unschedulable);
    assert.deepEqual(result.status?.reasons, ['Insufficient cpu']);
  });

  it('reprieves PDB-protected pods first and counts the protected victims', () => {
    const pods = [
      makePod('free', { priority: 1, cpu: '2', nodeName: 'n1', startTime: '2025-01-01T00:00:00Z' }),
      makePod('protected', { priority: 1, cpu: '2', nodeName: 'n1', labels: { app: 'web' }, startTime: '2025-06-01T00:00:00Z' }),
    ];
    // 'free' is more important (older), but 'protected' is tried first because its eviction would violate the budget.
    const one = run(pods, makePod('preemptor', { priority: 10, cpu: '2' }), { pdbs: [pdb(0)] });
    assert.deepEqual(names(one.result.victims), ['free']);
    assert.equal(one.result.numPDBViolations, 0);
    const both = run(pods, makePod('preemptor', { priority: 10, cpu: '4' }), { pdbs: [pdb(0)] });
    assert.deepEqual(names(both.result.victims), ['free', 'protected']);
    assert.equal(both.result.numPDBViolations, 1);
  });

  it('turns a failing PreFilter extension into an Error status', () => {
    const { result } = run([makePod('low', { priority: 1, cpu: '4', nodeName: 'n1' })], makePod('preemptor', { priority: 10, cpu: '1' }), {
      removePodStatus: new Status(Code.Error, ['state is broken']),
    });
    assert.equal(result.status?.code, Code.Error);
    assert.equal(result.status?.message(), 'state is broken');
  });
});
