import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Registry as PromRegistry } from 'prom-client';
import { newInformerFactory } from '../client/cache/informer-factory.js';
import { newEventRecorderFactory, type EventSink } from '../client/record/event-recorder.js';
import { EVENTS, NODES, PODS } from '../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../client/testing/fake-client.js';
import { waitFor } from '../client/testing/wait-for.js';
import type { KubeObject } from '../machinery/meta.js';
import { defaultSchedulerConfiguration, parseSchedulerConfiguration } from './config/load.js';
import type { Node, Pod } from './framework/types.js';
import { newScheduler } from './scheduler.js';
import { silentLogger } from './testing/fakes.js';

function node(name: string, cpu: string, extra: Partial<Node> = {}): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: {}, status: { allocatable: { cpu, memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] }, ...extra };
}

function pod(name: string, cpu: string, extra: { schedulerName?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu } } }], ...(extra.schedulerName === undefined ? {} : { schedulerName: extra.schedulerName }) },
    status: { phase: 'Pending' },
  };
}

interface Running {
  readonly client: FakeClient;
  readonly metrics: PromRegistry;
  readonly stop: () => Promise<void>;
  readonly events: EventSink;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

function start(client: FakeClient, configText?: string): Running {
  const informers = newInformerFactory(client);
  const events = newEventRecorderFactory(client, { logger: silentLogger });
  const metrics = new PromRegistry();
  const config = configText === undefined ? defaultSchedulerConfiguration() : parseSchedulerConfiguration(configText);
  const scheduler = newScheduler(
    { client, informers, events, logger: silentLogger, config, metricsRegistry: metrics },
    { queueOptions: { backoffFlushIntervalMs: 20 } },
  );
  const controller = new AbortController();
  const done = scheduler.run(controller.signal);
  const r: Running = {
    client,
    metrics,
    events,
    stop: async () => {
      controller.abort();
      await done;
      informers.stop();
      await events.shutdown();
    },
  };
  running.push(r);
  return r;
}

async function podNamed(client: FakeClient, name: string): Promise<Pod> {
  return client.resource<Pod>(PODS).get(name, { namespace: 'default' });
}

async function eventsFor(client: FakeClient, name: string): Promise<Array<{ reason?: string; message?: string }>> {
  const list = await client.resource<KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }>(EVENTS).list({ namespace: 'default' });
  return list.items.filter((e) => e.involvedObject?.name === name);
}

describe('scheduler', () => {
  it('binds pending pods with the in-tree plugins, and records Scheduled events and metrics', async () => {
    const client = newFakeClient();
    client.seed(NODES, [node('small', '1'), node('large', '8')]);
    client.seed(PODS, [pod('a', '2'), pod('b', '500m')]);
    const r = start(client);
    await waitFor(async () => (await podNamed(client, 'a')).spec?.nodeName === 'large', { description: 'pod a bound to the only node it fits' });
    await waitFor(async () => ((await podNamed(client, 'b')).spec?.nodeName ?? '') !== '', { description: 'pod b bound' });
    await r.events.flush();
    await waitFor(async () => (await eventsFor(client, 'a')).some((e) => e.reason === 'Scheduled' && e.message === 'Successfully assigned default/a to large'));
    const text = await r.metrics.metrics();
    assert.match(text, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 2/);
    assert.match(text, /scheduler_pending_pods\{queue="active"\} 0/);
    assert.match(text, /scheduler_framework_extension_point_duration_seconds_count\{extension_point="Bind",status="Success",profile="default-scheduler"\} 2/);
    assert.match(text, /scheduler_pod_scheduling_attempts_count 2/);
  });

  it('leaves a pod that fits nowhere Pending with the upstream message, then schedules it when a node that fits is added', async () => {
    const client = newFakeClient();
    client.seed(NODES, [node('n1', '1'), node('n2', '1')]);
    client.seed(PODS, [pod('big', '4')]);
    const r = start(client);
    const message = '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    await waitFor(async () => (await podNamed(client, 'big')).status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') ?? false, { description: 'PodScheduled=False' });
    const condition = (await podNamed(client, 'big')).status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.message, message);
    await r.events.flush();
    assert.ok((await eventsFor(client, 'big')).some((e) => e.reason === 'FailedScheduling' && e.message === message));
    await client.resource<Node>(NODES).create(node('n3', '8'));
    await waitFor(async () => (await podNamed(client, 'big')).spec?.nodeName === 'n3', { description: 'scheduled after NodeAdd' });
    assert.match(await r.metrics.metrics(), /scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} [1-9]/);
  });

  it('schedules only the pods of its profiles', async () => {
    const client = newFakeClient();
    client.seed(NODES, [node('n1', '4')]);
    client.seed(PODS, [pod('mine', '1', { schedulerName: 'second' }), pod('theirs', '1', { schedulerName: 'someone-else' })]);
    start(client, 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n- schedulerName: second\n');
    await waitFor(async () => (await podNamed(client, 'mine')).spec?.nodeName === 'n1', { description: 'pod of the second profile bound' });
    const theirs = await podNamed(client, 'theirs');
    assert.equal(theirs.spec?.nodeName, undefined);
    assert.equal(theirs.status?.conditions, undefined, 'never attempted');
  });

  it('stops when the signal aborts, with nothing left running', async () => {
    const client = newFakeClient();
    client.seed(NODES, [node('n1', '4')]);
    const r = start(client);
    await r.stop();
    running.length = 0;
    await client.resource<Pod>(PODS).create(pod('late', '1'));
    assert.equal((await podNamed(client, 'late')).spec?.nodeName, undefined);
  });
});
