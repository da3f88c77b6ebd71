import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PODS } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newLogger } from '../../machinery/logger.js';
import { serviceUnavailable } from '../../machinery/status.js';
import type { Pod } from '../types.js';
import { newApiSource } from './api-source.js';
import { CHECKPOINT_FILE, newPodCheckpoint } from './checkpoint.js';
import { newPodConfig } from './pod-config.js';

const logger = newLogger('test', { level: 'silent' });
const pod = (name: string, nodeName: string, annotations?: Record<string, string>): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...(annotations !== undefined ? { annotations } : {}) },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }] },
});

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('api pod source and checkpoint', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-api-source-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers only the pods bound to this node, follows the watch, and checkpoints every change', async () => {
    const client = newFakeClient();
    client.seed(PODS, [pod('mine', 'node-a'), pod('theirs', 'node-b')]);
    const checkpoint = newPodCheckpoint({ dir: join(dir, 'one'), logger });
    const sets: (readonly Pod[])[] = [];
    const source = newApiSource({ client, nodeName: 'node-a', checkpoint, logger });
    await source.start((pods) => sets.push(pods));
    try {
      await until(() => source.synced && sets.length > 0, 'the first list');
      assert.deepEqual(sets.at(-1)!.map((p) => p.metadata.name), ['mine']);
      await client.resource<Pod>(PODS).create(pod('new', 'node-a'));
      await until(() => sets.at(-1)!.length === 2, 'the watched pod');
      await checkpoint.flush();
      const saved = JSON.parse(await readFile(join(dir, 'one', CHECKPOINT_FILE), 'utf8')) as { kind: string; items: Pod[] };
      assert.equal(saved.kind, 'PodList');
      assert.deepEqual(saved.items.map((p) => p.metadata.name).sort(), ['mine', 'new']);
      await client.resource<Pod>(PODS).delete('mine', { namespace: 'default', gracePeriodSeconds: 0 });
      await until(() => sets.at(-1)!.length === 1, 'the deletion');
    } finally {
      source.stop();
    }
  });

  it('checkpoints when pods come and go or their spec or metadata changes, not on a status change alone', async () => {
    const client = newFakeClient();
    client.seed(PODS, [pod('mine', 'node-a')]);
    const inner = newPodCheckpoint({ dir: join(dir, 'changes'), logger });
    const saved: string[][] = [];
    const checkpoint = { ...inner, save: (pods: readonly Pod[]) => (saved.push(pods.map((p) => `${p.metadata.name}:${JSON.stringify(p.metadata.labels ?? {})}`)), inner.save(pods)) };
    const sets: (readonly Pod[])[] = [];
    const source = newApiSource({ client, nodeName: 'node-a', checkpoint, logger });
    await source.start((pods) => sets.push(pods));
    const pods = client.resource<Pod>(PODS);
    try {
      await until(() => source.synced && sets.length > 0, 'the first list');
      assert.equal(saved.length, 1);
      const current = await pods.get('mine', { namespace: 'default' });
      await pods.updateStatus({ ...current, status: { phase: 'Running' } });
      await until(() => sets.at(-1)![0]?.status?.phase === 'Running', 'the status change');
      assert.equal(saved.length, 1, 'a status change is not checkpointed');
      const running = await pods.get('mine', { namespace: 'default' });
      await pods.update({ ...running, metadata: { ...running.metadata, labels: { app: 'x' } } });
      await until(() => sets.at(-1)![0]?.metadata.labels?.['app'] === 'x', 'the label change');
      assert.deepEqual(saved.at(-1), ['mine:{"app":"x"}']);
      await pods.create(pod('new', 'node-a'));
      await until(() => sets.at(-1)!.length === 2, 'the new pod');
      assert.equal(saved.length, 3);
      await pods.delete('new', { namespace: 'default', gracePeriodSeconds: 0 });
      await until(() => sets.at(-1)!.length === 1, 'the deletion');
      assert.equal(saved.length, 4);
      await inner.flush();
    } finally {
      source.stop();
    }
  });

  it('relists after the watch expires (410)', async () => {
    const client = newFakeClient();
    client.seed(PODS, [pod('a', 'node-a')]);
    const sets: (readonly Pod[])[] = [];
    const source = newApiSource({ client, nodeName: 'node-a', checkpoint: newPodCheckpoint({ dir: join(dir, 'relist'), logger }), logger, initialBackoffMs: 1 });
    await source.start((pods) => sets.push(pods));
    try {
      await until(() => source.synced, 'the first list');
      await client.resource<Pod>(PODS).create(pod('b', 'node-a'));
      await until(() => sets.at(-1)!.length === 2, 'b');
      client.compact();
      client.closeWatches();
      await client.resource<Pod>(PODS).create(pod('c', 'node-a'));
      await until(() => sets.at(-1)!.length === 3, 'c after the relist');
    } finally {
      source.stop();
    }
  });

  it('uses the checkpoint while the API server cannot be reached, until the first list succeeds', async () => {
    const checkpointDir = join(dir, 'outage');
    const checkpoint = newPodCheckpoint({ dir: checkpointDir, logger });
    checkpoint.save([pod('remembered', 'node-a')]);
    await checkpoint.flush();

    const client = newFakeClient();
    client.seed(PODS, [pod('current', 'node-a')]);
    client.injectError('list', 'pods', serviceUnavailable('the API server is down'), 3);
    const sets: (readonly Pod[])[] = [];
    const source = newApiSource({ client, nodeName: 'node-a', checkpoint: newPodCheckpoint({ dir: checkpointDir, logger }), logger, initialBackoffMs: 20 });
    await source.start((pods) => sets.push(pods));
    try {
      await until(() => sets.length > 0, 'the checkpointed set');
      assert.deepEqual(sets[0]!.map((p) => p.metadata.name), ['remembered']);
      assert.equal(source.synced, false);
      await until(() => source.synced, 'the first successful list');
      assert.deepEqual(sets.at(-1)!.map((p) => p.metadata.name), ['current']);
    } finally {
      source.stop();
    }
  });

  it('uses the checkpoint after the grace period when the first list hangs, and ignores a corrupt checkpoint', async () => {
    const checkpointDir = join(dir, 'hang');
    const checkpoint = newPodCheckpoint({ dir: checkpointDir, logger });
    checkpoint.save([pod('remembered', 'node-a')]);
    await checkpoint.flush();
    const hanging = { resource: () => ({ list: () => new Promise(() => undefined), watch: () => { throw new Error('no'); } }) } as unknown as ReturnType<typeof newFakeClient>;
    const sets: (readonly Pod[])[] = [];
    const source = newApiSource({ client: hanging, nodeName: 'node-a', checkpoint: newPodCheckpoint({ dir: checkpointDir, logger }), logger, checkpointGraceMs: 10 });
    await source.start((pods) => sets.push(pods));
    await until(() => sets.length > 0, 'the checkpoint after the grace period');
    source.stop();

    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'corrupt'), { recursive: true });
    await writeFile(join(dir, 'corrupt', CHECKPOINT_FILE), '{not json');
    assert.equal(await newPodCheckpoint({ dir: join(dir, 'corrupt'), logger }).load(), undefined);
    assert.equal(await newPodCheckpoint({ dir: join(dir, 'absent'), logger }).load(), undefined);
  });
});

describe('pod config', () => {
  it('merges API pods (mirror pods included) and static pods for the workers, and sets mirror pods apart for the mirror pod manager', () => {
    const states: Pod[][] = [];
    const config = newPodConfig((s) => states.push([...s.pods]));
    const mirror = pod('web-node-a', 'node-a', { 'kubernetes.io/config.mirror': 'h' });
    const clash = pod('db-node-a', 'node-a');
    config.set('api', [pod('app', 'node-a'), mirror, clash]);
    config.set('file', [pod('web-node-a', 'node-a', { 'kubernetes.io/config.source': 'file' }), pod('db-node-a', 'node-a', { 'kubernetes.io/config.source': 'file' })]);
    assert.deepEqual(config.state.pods.map((p) => p.metadata.name), ['app', 'web-node-a', 'web-node-a', 'db-node-a']);
    assert.equal(config.state.pods[1]!.metadata.annotations?.['kubernetes.io/config.mirror'], 'h');
    assert.equal(config.state.pods[2]!.metadata.annotations?.['kubernetes.io/config.source'], 'file');
    assert.equal(config.state.pods[3]!.metadata.annotations?.['kubernetes.io/config.source'], 'file', 'an API pod cannot take a static pod\'s name');
    assert.deepEqual(config.state.mirrorPods, [mirror]);
    assert.deepEqual([...config.state.seen].sort(), ['api', 'file']);
    assert.equal(states.length, 2);
  });
});
