import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { serviceUnavailable } from '../../machinery/status.js';
import { EVENTS } from '../rest/resources.js';
import { newFakeClient } from '../testing/fake-client.js';
import { EVENT_AGGREGATION_WINDOW_MS, newEventRecorderFactory, type EventObject } from './event-recorder.js';

const rs: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web-5d4f', namespace: 'prod', uid: 'u-1', resourceVersion: '42' },
};
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u-2', resourceVersion: '7' } };

async function listEvents(client: ReturnType<typeof newFakeClient>, namespace?: string): Promise<EventObject[]> {
  return (await client.resource<EventObject>(EVENTS).list(namespace === undefined ? {} : { namespace })).items;
}

describe('event recorder', () => {
  it('writes a core/v1 Event as upstream names and fills it', async () => {
    const client = newFakeClient();
    const t = Date.UTC(2026, 0, 2, 3, 4, 5, 600);
    const sink = newEventRecorderFactory(client, { now: () => t });
    sink.recorderFor('replicaset-controller').event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-5d4f-abcde');
    await sink.flush();
    const [e, ...rest] = await listEvents(client, 'prod');
    assert.equal(rest.length, 0);
    assert.match(e!.metadata.name!, /^web-5d4f\.[0-9a-f]+$/);
    assert.deepEqual(e!.involvedObject, { kind: 'ReplicaSet', namespace: 'prod', name: 'web-5d4f', uid: 'u-1', apiVersion: 'apps/v1', resourceVersion: '42' });
    assert.equal(e!.reason, 'SuccessfulCreate');
    assert.equal(e!.message, 'Created pod: web-5d4f-abcde');
    assert.equal(e!.type, 'Normal');
    assert.deepEqual(e!.source, { component: 'replicaset-controller' });
    assert.equal(e!.firstTimestamp, '2026-01-02T03:04:05Z');
    assert.equal(e!.lastTimestamp, '2026-01-02T03:04:05Z');
    assert.equal(e!.count, 1);
    assert.equal(e!.reportingComponent, 'replicaset-controller');
    assert.equal(e!.reportingInstance, '');
  });

  it('puts Events of cluster-scoped objects in default, with the host when given', async () => {
    const client = newFakeClient();
    const sink = newEventRecorderFactory(client, { host: 'node-a' });
    sink.recorderFor('kubelet').event(node, 'Warning', 'Rebooted', 'Node n1 has been rebooted');
    await sink.flush();
    const [e] = await listEvents(client, 'default');
    assert.equal(e!.involvedObject.namespace, undefined);
    assert.deepEqual(e!.source, { component: 'kubelet', host: 'node-a' });
    assert.equal(e!.reportingInstance, 'node-a');
  });

  it('counts identical Events within ten minutes on one Event with a merge patch', async () => {
    const client = newFakeClient();
    let t = Date.UTC(2026, 0, 1, 0, 0, 0);
    const sink = newEventRecorderFactory(client, { now: () => t });
    const r = sink.recorderFor('replicaset-controller');
    r.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: a');
    t += 60_000;
    r.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: a');
    r.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: b'); // another message: another Event
    t += 60_000;
    r.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: a');
    await sink.flush();
    const events = await listEvents(client, 'prod');
    assert.equal(events.length, 2);
    const a = events.find((e) => e.message === 'Created pod: a')!;
    assert.equal(a.count, 3);
    assert.equal(a.firstTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(a.lastTimestamp, '2026-01-01T00:02:00Z');
    const patches = client.actionsOf('patch', 'events');
    assert.equal(patches.length, 2);
    assert.equal(patches[0]!.patchType, 'merge');
    assert.deepEqual(patches[1]!.body, { count: 3, lastTimestamp: '2026-01-01T00:02:00Z', message: 'Created pod: a' });

    t += EVENT_AGGREGATION_WINDOW_MS + 1;
    r.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: a');
    await sink.flush();
    assert.equal((await listEvents(client, 'prod')).length, 3, 'after ten minutes of quiet, a new Event');
  });

  it('names the part of the object in involvedObject.fieldPath, and counts Events about different parts apart', async () => {
    const client = newFakeClient();
    const sink = newEventRecorderFactory(client, { host: 'node-a' });
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'prod', uid: 'u-3', resourceVersion: '9' } };
    const r = sink.recorderFor('kubelet');
    r.event(pod, 'Warning', 'BackOff', 'Back-off', { fieldPath: 'spec.containers{a}' });
    r.event(pod, 'Warning', 'BackOff', 'Back-off', { fieldPath: 'spec.containers{b}' });
    r.event(pod, 'Warning', 'BackOff', 'Back-off', { fieldPath: 'spec.containers{a}' });
    r.event(pod, 'Warning', 'FailedMount', 'no volume');
    await sink.flush();
    const events = await listEvents(client, 'prod');
    assert.deepEqual(
      events.map((e) => [e.involvedObject.fieldPath, e.reason, e.count]).sort(),
      [
        ['spec.containers{a}', 'BackOff', 2],
        ['spec.containers{b}', 'BackOff', 1],
        [undefined, 'FailedMount', 1],
      ].sort(),
    );
    assert.deepEqual(events.find((e) => e.reason === 'FailedMount')!.involvedObject, { kind: 'Pod', namespace: 'prod', name: 'web', uid: 'u-3', apiVersion: 'v1', resourceVersion: '9' });
  });

  it('creates the Event again when the one it counted on is gone', async () => {
    const client = newFakeClient();
    const sink = newEventRecorderFactory(client);
    const r = sink.recorderFor('deployment-controller');
    r.event(rs, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-5d4f to 3');
    await sink.flush();
    const [first] = await listEvents(client, 'prod');
    await client.resource(EVENTS).delete(first!.metadata.name!, { namespace: 'prod' });
    r.event(rs, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-5d4f to 3');
    await sink.flush();
    const [again, ...rest] = await listEvents(client, 'prod');
    assert.equal(rest.length, 0);
    assert.equal(again!.count, 2);
    assert.notEqual(again!.metadata.name, first!.metadata.name);
  });

  it('never throws nor blocks: a failed write is logged and the next Event is written', async () => {
    const client = newFakeClient();
    const warnings: string[] = [];
    const logger = { warn: (_o: unknown, msg: string) => void warnings.push(msg) } as unknown as import('../../machinery/logger.js').Logger;
    const sink = newEventRecorderFactory(client, { logger });
    client.injectError('create', 'events', serviceUnavailable('down'));
    const r = sink.recorderFor('c');
    r.event(rs, 'Warning', 'FailedCreate', 'one');
    r.event(rs, 'Warning', 'FailedCreate', 'two');
    await sink.flush();
    assert.deepEqual(warnings, ['unable to write event']);
    assert.deepEqual((await listEvents(client, 'prod')).map((e) => e.message), ['two']);
  });

  it('drops Events beyond its queue bound, and all after shutdown', async () => {
    const client = newFakeClient();
    const warnings: string[] = [];
    const logger = { warn: (_o: unknown, msg: string) => void warnings.push(msg) } as unknown as import('../../machinery/logger.js').Logger;
    const sink = newEventRecorderFactory(client, { logger, maxQueued: 2 });
    const r = sink.recorderFor('c');
    for (const m of ['1', '2', '3', '4']) r.event(rs, 'Normal', 'R', m);
    await sink.shutdown();
    r.event(rs, 'Normal', 'R', 'after');
    await sink.flush();
    const messages = (await listEvents(client, 'prod')).map((e) => e.message).sort();
    // The first is being written at once; two wait; the fourth finds the queue full.
    assert.deepEqual(messages, ['1', '2', '3']);
    assert.ok(warnings.includes('event queue is full; dropping event'));
  });

  it('logs dropped Events once per 10 s, not once each', async () => {
    const client = newFakeClient();
    const warnings: Array<{ dropped: number }> = [];
    const logger = { warn: (o: { dropped: number }) => void warnings.push(o) } as unknown as import('../../machinery/logger.js').Logger;
    let clock = 1_700_000_000_000;
    const sink = newEventRecorderFactory(client, { logger, maxQueued: 1, now: () => clock });
    const r = sink.recorderFor('c');
    for (const m of ['1', '2', '3', '4', '5']) r.event(rs, 'Normal', 'R', m);
    clock += 10_000;
    r.event(rs, 'Normal', 'R', '6');
    await sink.shutdown();
    assert.deepEqual(warnings.map((w) => w.dropped), [1, 4]);
  });

  it('gives Events recorded in the same millisecond distinct names', async () => {
    const client = newFakeClient();
    const sink = newEventRecorderFactory(client, { now: () => 1_700_000_000_000 });
    const r = sink.recorderFor('c');
    for (let i = 0; i < 5; i++) r.event(rs, 'Normal', 'R', `m${i}`);
    await sink.flush();
    const names = new Set((await listEvents(client, 'prod')).map((e) => e.metadata.name));
    assert.equal(names.size, 5);
  });
});
