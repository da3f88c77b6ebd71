import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InternalEvent as Event } from '../../../../api/events/internal.js';
import { H, M, NOW, S, ago, assertColumns, cellsByName } from '../../printing/testing/table-assertions.js';
import { eventTable } from './table.js';

function event(overrides: Partial<Event> = {}): Event {
  return {
    metadata: { name: 'web-1.17d2a', namespace: 'default', creationTimestamp: ago(H) },
    involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default', fieldPath: 'spec.containers{app}' },
    reason: 'Pulled',
    message: '  Container image "nginx" already present on machine\n',
    type: 'Normal',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: ago(H),
    lastTimestamp: ago(5 * M),
    count: 4,
    ...overrides,
  };
}

describe('eventTable', () => {
  it('has upstream columns', () => {
    assertColumns(eventTable, [
      ['Last Seen', 'string', '', 0],
      ['Type', 'string', '', 0],
      ['Reason', 'string', '', 0],
      ['Object', 'string', '', 0],
      ['Subobject', 'string', '', 1],
      ['Source', 'string', '', 1],
      ['Message', 'string', '', 0],
      ['First Seen', 'string', '', 1],
      ['Count', 'string', '', 1],
      ['Name', 'string', 'name', 1],
    ]);
  });

  it('prints an old-style event', () => {
    assert.deepEqual(eventTable.cells(event(), NOW), [
      '5m', 'Normal', 'Pulled', 'pod/web-1', 'spec.containers{app}', 'kubelet, node-1',
      'Container image "nginx" already present on machine', '60m', 4, 'web-1.17d2a',
    ]);
  });

  it('prints a new-style singleton event from eventTime and reporting fields', () => {
    const e: Event = {
      metadata: { name: 'web-1.17d2b', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'web-1' },
      reason: 'Scheduled',
      message: 'Successfully assigned default/web-1 to node-1',
      type: 'Normal',
      eventTime: '2024-06-01T11:59:15.123456Z',
      reportingController: 'default-scheduler',
      reportingInstance: '',
      action: 'Binding',
    };
    const c = cellsByName(eventTable, e);
    assert.equal(c['Last Seen'], '44s');
    assert.equal(c['First Seen'], '44s');
    assert.equal(c['Count'], 1);
    assert.equal(c['Source'], 'default-scheduler');
  });

  it('uses the series for last seen and count', () => {
    const e = event({ series: { count: 12, lastObservedTime: '2024-06-01T11:59:30.000000Z' } });
    const c = cellsByName(eventTable, e);
    assert.equal(c['Last Seen'], '30s');
    assert.equal(c['Count'], 12);
  });

  it('falls back to the first timestamp when the last one is missing', () => {
    const e = event({ firstTimestamp: ago(90 * S) });
    delete e.lastTimestamp;
    assert.equal(cellsByName(eventTable, e)['Last Seen'], '90s');
  });

  it('prints the kind alone for an unnamed object, and <unknown> for no time at all', () => {
    const e = event({ involvedObject: { kind: 'Node' } });
    delete e.firstTimestamp;
    delete e.lastTimestamp;
    const c = cellsByName(eventTable, e);
    assert.equal(c['Object'], 'node');
    assert.equal(c['Subobject'], '');
    assert.equal(c['Last Seen'], '<unknown>');
  });

  it('prints a warning about a deployment', () => {
    const e = event({
      type: 'Warning',
      reason: 'FailedCreate',
      involvedObject: { kind: 'ReplicaSet', name: 'web-5d9c' },
      source: { component: 'replicaset-controller' },
    });
    const c = cellsByName(eventTable, e);
    assert.equal(c['Type'], 'Warning');
    assert.equal(c['Object'], 'replicaset/web-5d9c');
    assert.equal(c['Source'], 'replicaset-controller');
  });
});
