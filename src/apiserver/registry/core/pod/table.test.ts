import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { D, H, M, NOW, S, ago, assertColumns, cellsByName } from '../../printing/testing/table-assertions.js';
import { podTable } from './table.js';

function pod(overrides: Partial<Pod> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'default', creationTimestamp: ago(2 * D + 3 * H) },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
    ...overrides,
  };
}

const running = { running: { startedAt: ago(H) } };

describe('podTable', () => {
  it('has upstream columns', () => {
    assertColumns(podTable, [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ]);
  });

  it('prints a pending, unscheduled pod', () => {
    assert.deepEqual(podTable.cells(pod({ status: { phase: 'Pending' } }), NOW), [
      'web-1', '0/1', 'Pending', '0', '2d3h', '<none>', '<none>', '<none>', '<none>',
    ]);
  });

  it('prints a pod with no status at all', () => {
    const c = cellsByName(podTable, pod());
    assert.equal(c['Status'], '');
    assert.equal(c['Ready'], '0/1');
  });

  it('shows the waiting reason of a container being created', () => {
    const p = pod({
      spec: { nodeName: 'node-1', containers: [{ name: 'app' }] },
      status: { phase: 'Pending', containerStatuses: [waiting('app', 'ContainerCreating')] },
    });
    const c = cellsByName(podTable, p);
    assert.equal(c['Status'], 'ContainerCreating');
    assert.equal(c['Node'], 'node-1');
  });

  it('prints a running pod with restarts and the time of the last one', () => {
    const p = pod({
      spec: { nodeName: 'node-1', containers: [{ name: 'app' }, { name: 'log' }] },
      status: {
        phase: 'Running',
        podIP: '10.244.0.5',
        podIPs: [{ ip: '10.244.0.5' }, { ip: 'fd00::5' }],
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          {
            name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 3, state: running,
            lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * M + 10 * S) } },
          },
          {
            name: 'log', image: 'busybox', imageID: '', ready: true, restartCount: 2, state: running,
            lastState: { terminated: { exitCode: 1, finishedAt: ago(20 * M) } },
          },
        ],
      },
    });
    assert.deepEqual(podTable.cells(p, NOW), [
      'web-1', '2/2', 'Running', '5 (5m10s ago)', '2d3h', '10.244.0.5', 'node-1', '<none>', '<none>',
    ]);
  });

  it('prints restarts without a time when the last termination time is unknown', () => {
    const p = pod({
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 4, state: running }],
      },
    });
    assert.equal(cellsByName(podTable, p)['Restarts'], '4');
  });

  it('shows CrashLoopBackOff and counts only ready running containers', () => {
    const p = pod({
      spec: { containers: [{ name: 'app' }, { name: 'side' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          { ...waiting('app', 'CrashLoopBackOff'), restartCount: 7, lastState: { terminated: { exitCode: 2, finishedAt: ago(30 * S) } } },
          { name: 'side', image: 'x', imageID: '', ready: true, restartCount: 0, state: running },
        ],
      },
    });
    const c = cellsByName(podTable, p);
    assert.equal(c['Ready'], '1/2');
    assert.equal(c['Status'], 'CrashLoopBackOff');
    assert.equal(c['Restarts'], '7 (30s ago)');
  });

  it('prints a completed pod', () => {
    const p = pod({
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          { name: 'app', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        ],
      },
    });
    const c = cellsByName(podTable, p);
    assert.equal(c['Ready'], '0/1');
    assert.equal(c['Status'], 'Completed');
  });

  it('prints Error, ExitCode and Signal for failed containers', () => {
    const failed = (terminated: { exitCode: number; reason?: string; signal?: number }): Pod =>
      pod({
        status: {
          phase: 'Failed',
          containerStatuses: [{ name: 'app', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated } }],
        },
      });
    assert.equal(cellsByName(podTable, failed({ exitCode: 1, reason: 'Error' }))['Status'], 'Error');
    assert.equal(cellsByName(podTable, failed({ exitCode: 137 }))['Status'], 'ExitCode:137');
    assert.equal(cellsByName(podTable, failed({ exitCode: 137, signal: 9 }))['Status'], 'Signal:9');
  });

  it('shows Running or NotReady when one container completed and another still runs', () => {
    const p = (ready: 'True' | 'False'): Pod =>
      pod({
        spec: { containers: [{ name: 'job' }, { name: 'app' }] },
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: ready }],
          containerStatuses: [
            { name: 'job', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
            { name: 'app', image: 'x', imageID: '', ready: true, restartCount: 0, state: running },
          ],
        },
      });
    assert.equal(cellsByName(podTable, p('True'))['Status'], 'Running');
    assert.equal(cellsByName(podTable, p('False'))['Status'], 'NotReady');
  });

  it('prints Terminating for a pod being deleted', () => {
    const p = pod({
      metadata: { name: 'web-1', creationTimestamp: ago(H), deletionTimestamp: ago(-30 * S) },
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'app', image: 'x', imageID: '', ready: true, restartCount: 0, state: running }],
      },
    });
    const c = cellsByName(podTable, p);
    assert.equal(c['Status'], 'Terminating');
    assert.equal(c['Ready'], '1/1');
    assert.equal(c['Age'], '60m');
  });

  it('keeps the final status of a finished pod being deleted, and shows Unknown on a lost node', () => {
    const done = pod({
      metadata: { name: 'web-1', creationTimestamp: ago(H), deletionTimestamp: ago(0) },
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          { name: 'app', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        ],
      },
    });
    assert.equal(cellsByName(podTable, done)['Status'], 'Completed');
    const lost = pod({
      metadata: { name: 'web-1', creationTimestamp: ago(H), deletionTimestamp: ago(0) },
      status: { phase: 'Running', reason: 'NodeLost' },
    });
    assert.equal(cellsByName(podTable, lost)['Status'], 'Unknown');
  });

  it('prints the pod reason, e.g. Evicted', () => {
    const p = pod({ status: { phase: 'Failed', reason: 'Evicted', message: 'low on memory' } });
    assert.equal(cellsByName(podTable, p)['Status'], 'Evicted');
  });

  it('prints SchedulingGated', () => {
    const p = pod({
      spec: { schedulingGates: [{ name: 'wait' }], containers: [{ name: 'app' }] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    });
    assert.equal(cellsByName(podTable, p)['Status'], 'SchedulingGated');
  });

  describe('init containers', () => {
    const spec = { initContainers: [{ name: 'init-a' }, { name: 'init-b' }], containers: [{ name: 'app' }] };
    const withInit = (initContainerStatuses: ContainerStatus[]): Pod =>
      pod({
        spec,
        status: {
          phase: 'Pending',
          initContainerStatuses,
          containerStatuses: [waiting('app', 'PodInitializing')],
        },
      });

    it('prints Init:0/2 while the first init container runs', () => {
      const p = withInit([
        { name: 'init-a', image: 'x', imageID: '', ready: false, restartCount: 0, state: running },
        waiting('init-b', 'PodInitializing'),
      ]);
      assert.deepEqual([cellsByName(podTable, p)['Ready'], cellsByName(podTable, p)['Status']], ['0/1', 'Init:0/2']);
    });

    it('prints Init:1/2 once the first is done', () => {
      const p = withInit([
        { name: 'init-a', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        waiting('init-b', 'PodInitializing'),
      ]);
      assert.equal(cellsByName(podTable, p)['Status'], 'Init:1/2');
    });

    it('prints Init:1/2 for an init container with no state yet', () => {
      const p = withInit([
        { name: 'init-a', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { name: 'init-b', image: 'x', imageID: '', ready: false, restartCount: 0 },
      ]);
      assert.equal(cellsByName(podTable, p)['Status'], 'Init:1/2');
    });

    it('prints Init:CrashLoopBackOff with init restarts', () => {
      const p = withInit([
        {
          ...waiting('init-a', 'CrashLoopBackOff'), restartCount: 4,
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(2 * M) } },
        },
        waiting('init-b', 'PodInitializing'),
      ]);
      const c = cellsByName(podTable, p);
      assert.equal(c['Status'], 'Init:CrashLoopBackOff');
      assert.equal(c['Restarts'], '4 (2m ago)');
    });

    it('prints Init:Error, Init:ExitCode and Init:Signal for a failed init container', () => {
      const failedInit = (terminated: { exitCode: number; reason?: string; signal?: number }): Pod =>
        withInit([{ name: 'init-a', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated } }]);
      assert.equal(cellsByName(podTable, failedInit({ exitCode: 1, reason: 'Error' }))['Status'], 'Init:Error');
      assert.equal(cellsByName(podTable, failedInit({ exitCode: 3 }))['Status'], 'Init:ExitCode:3');
      assert.equal(cellsByName(podTable, failedInit({ exitCode: 3, signal: 15 }))['Status'], 'Init:Signal:15');
    });

    it('adds the restarts of finished and running init containers while initializing', () => {
      const p = withInit([
        {
          name: 'init-a', image: 'x', imageID: '', ready: false, restartCount: 2, state: { terminated: { exitCode: 0 } },
          lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * M) } },
        },
        {
          name: 'init-b', image: 'x', imageID: '', ready: false, restartCount: 3, state: running,
          lastState: { terminated: { exitCode: 1, finishedAt: ago(10 * S) } },
        },
      ]);
      assert.deepEqual(podTable.cells(p, NOW).slice(1, 4), ['0/1', 'Init:1/2', '5 (10s ago)']);
    });

    it('counts only app container restarts once initialized', () => {
      const p = pod({
        spec: { initContainers: [{ name: 'init-a' }], containers: [{ name: 'app' }] },
        status: {
          phase: 'Running',
          initContainerStatuses: [
            {
              name: 'init-a', image: 'x', imageID: '', ready: false, restartCount: 2, state: { terminated: { exitCode: 0 } },
              lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * M) } },
            },
          ],
          containerStatuses: [
            {
              name: 'app', image: 'x', imageID: '', ready: false, restartCount: 4, state: running,
              lastState: { terminated: { exitCode: 1, finishedAt: ago(20 * S) } },
            },
          ],
        },
      });
      assert.deepEqual(podTable.cells(p, NOW).slice(1, 4), ['0/1', 'Running', '4 (20s ago)']);
    });

    it('counts a started sidecar as a container and its restarts', () => {
      const p = pod({
        spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }] },
        status: {
          phase: 'Running',
          conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }],
          initContainerStatuses: [
            {
              name: 'proxy', image: 'x', imageID: '', ready: true, started: true, restartCount: 1, state: running,
              lastState: { terminated: { exitCode: 1, finishedAt: ago(10 * M) } },
            },
          ],
          containerStatuses: [{ name: 'app', image: 'x', imageID: '', ready: true, restartCount: 0, state: running }],
        },
      });
      assert.deepEqual(podTable.cells(p, NOW).slice(1, 4), ['2/2', 'Running', '1 (10m ago)']);
    });

    it('waits for a sidecar that has not started', () => {
      const p = pod({
        spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }] },
        status: {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'proxy', image: 'x', imageID: '', ready: false, started: false, restartCount: 0, state: running }],
        },
      });
      assert.deepEqual(podTable.cells(p, NOW).slice(1, 3), ['0/2', 'Init:0/1']);
    });
  });

  it('counts true readiness gates', () => {
    const p = pod({
      spec: {
        containers: [{ name: 'app' }],
        readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }],
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'False' }],
      },
    });
    assert.equal(cellsByName(podTable, p)['Readiness Gates'], '1/2');
  });

  it('uses the first of podIPs when podIP is unset, and prints the nominated node', () => {
    const p = pod({ status: { phase: 'Pending', podIPs: [{ ip: '10.0.0.9' }], nominatedNodeName: 'node-2' } });
    const c = cellsByName(podTable, p);
    assert.equal(c['IP'], '10.0.0.9');
    assert.equal(c['Nominated Node'], 'node-2');
  });

  it('prints <unknown> age without a creation time and <invalid> for a future one', () => {
    assert.equal(cellsByName(podTable, pod({ metadata: { name: 'x' } }))['Age'], '<unknown>');
    assert.equal(cellsByName(podTable, pod({ metadata: { name: 'x', creationTimestamp: ago(-H) } }))['Age'], '<invalid>');
  });
});

function waiting(name: string, reason: string) {
  return { name, image: 'x', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason } } };
}
