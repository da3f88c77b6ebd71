import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinConversions } from '../conversion/builtin.js';

const conversions = newBuiltinConversions();
const CORE = { group: '', version: 'v1', kind: 'Event' };
const EVENTS = { group: 'events.k8s.io', version: 'v1', kind: 'Event' };

describe('Event conversion', () => {
  it('writes an old-style core/v1 event as events.k8s.io/v1 the way upstream does (field order, empty fields Go always writes)', () => {
    const core = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-1.17d', namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1' },
      reason: 'Pulled',
      message: 'pulled',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2024-06-01T12:00:00Z',
      lastTimestamp: '2024-06-01T12:00:05Z',
      count: 2,
      type: 'Normal',
    };
    assert.equal(
      JSON.stringify(conversions.convert(core, EVENTS)),
      '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"web-1.17d","namespace":"default"},"eventTime":null,"reason":"Pulled",' +
        '"regarding":{"kind":"Pod","namespace":"default","name":"web-1"},"note":"pulled","type":"Normal","deprecatedSource":{"component":"kubelet","host":"node-1"},' +
        '"deprecatedFirstTimestamp":"2024-06-01T12:00:00Z","deprecatedLastTimestamp":"2024-06-01T12:00:05Z","deprecatedCount":2}',
    );
    // And core/v1 itself, as Go writes it: the empty times and reporting fields appear.
    assert.equal(
      JSON.stringify(conversions.convert(core, CORE)),
      '{"apiVersion":"v1","kind":"Event","metadata":{"name":"web-1.17d","namespace":"default"},"involvedObject":{"kind":"Pod","namespace":"default","name":"web-1"},' +
        '"reason":"Pulled","message":"pulled","source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2024-06-01T12:00:00Z",' +
        '"lastTimestamp":"2024-06-01T12:00:05Z","count":2,"type":"Normal","eventTime":null,"reportingComponent":"","reportingInstance":""}',
    );
  });

  it('writes a new-style events.k8s.io/v1 event as core/v1 the way upstream does', () => {
    const events = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      eventTime: '2024-06-01T12:00:00.000001Z',
      series: { count: 2, lastObservedTime: '2024-06-01T12:01:00.000000Z' },
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-node-1',
      action: 'Binding',
      reason: 'Scheduled',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web-1' },
      note: 'Successfully assigned default/web-1 to node-1',
      type: 'Normal',
    };
    assert.equal(
      JSON.stringify(conversions.convert(events, CORE)),
      '{"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"default"},"involvedObject":{"kind":"Pod","namespace":"default","name":"web-1"},' +
        '"reason":"Scheduled","message":"Successfully assigned default/web-1 to node-1","source":{},"firstTimestamp":null,"lastTimestamp":null,"type":"Normal",' +
        '"eventTime":"2024-06-01T12:00:00.000001Z","series":{"count":2,"lastObservedTime":"2024-06-01T12:01:00.000000Z"},"action":"Binding",' +
        '"reportingComponent":"default-scheduler","reportingInstance":"default-scheduler-node-1"}',
    );
    // Empty fields one version always writes are not carried into the other.
    const back = conversions.convert(conversions.convert(events, CORE), EVENTS);
    assert.deepEqual(back, { ...events, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null });
    assert.deepEqual(Object.keys(back), [
      'apiVersion', 'kind', 'metadata', 'eventTime', 'series', 'reportingController', 'reportingInstance', 'action', 'reason', 'regarding', 'note', 'type',
      'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp',
    ]);
  });
});
