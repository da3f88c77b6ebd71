/**
 * The pod workers with the kubelet's real probe manager, volume manager, env
 * resolver and container mounts (over the fake client) on the process
 * runtime: the parts meet as the kubelet composes them.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CONFIG_MAPS, PODS } from '../../client/rest/resources.js';
import { waitFor } from '../../client/testing/wait-for.js';
import { newEnvResolver } from '../env/env-resolver.js';
import { newProbeManager } from '../prober/probe-manager.js';
import type { Pod } from '../types.js';
import { containerMounts } from '../volumes/container-mounts.js';
import { newApiObjectSource } from '../volumes/object-source.js';
import { newVolumeManager } from '../volumes/volume-manager.js';
import { newLogger } from '../../machinery/logger.js';
import { newPodWorkers } from './pod-workers.js';
import { newHarness, type Harness } from './testing/harness.js';

const WAIT = { timeoutMs: 20_000, intervalMs: 10 };

describe('pod workers with the real probe manager, volumes and env', () => {
  let h: Harness | undefined;
  after(async () => {
    await h?.dispose();
  });

  it('mounts volumes, resolves env from a ConfigMap and the downward API, and follows a readiness probe', async () => {
    const probeEvents: string[] = [];
    // The probe manager needs the runtime and calls back into the workers: the harness comes first, then the real parts.
    const harness = newHarness();
    h = harness;
    await harness.workers.stop();
    const source = newApiObjectSource({ client: harness.client });
    const realProbes = newProbeManager({
      runtime: harness.runtime.runtime,
      events: { event: (_o, _t, reason, message) => probeEvents.push(`${reason}: ${message}`) },
      onChange: (uid) => harness.workers.requestSync(uid),
      onFailure: (uid, name, id, _kind, message) => harness.workers.killContainer(uid, name, id, message),
    });
    harness.workers = newPodWorkers({
      nodeName: 'node-1',
      nodeIPs: ['127.0.0.1'],
      rootDir: join(harness.root, 'kubelet'),
      logsDir: harness.logsDir,
      runtime: harness.runtime,
      volumes: newVolumeManager({ rootDir: join(harness.root, 'kubelet'), source }),
      containerMounts,
      env: newEnvResolver({ source }),
      probes: realProbes,
      client: harness.client,
      events: { event: (object, type, reason, message) => harness.events.push({ pod: object.metadata.name ?? '', type, reason, message }) },
      logger: newLogger('test', { level: 'silent' }),
      backoff: { initialMs: 200, maxMs: 800, resetAfterMs: 60_000 },
      resyncIntervalMs: 60_000,
      relistIntervalMs: 20,
      statusRetryIntervalMs: 50,
      node: () => undefined,
    });

    harness.client.seed(CONFIG_MAPS, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { greeting: 'hello-from-configmap' } }]);
    const readyFile = join(harness.root, 'ready');
    const created = await harness.createPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'real', namespace: 'default' },
      spec: {
        terminationGracePeriodSeconds: 5,
        volumes: [{ name: 'data', emptyDir: {} }],
        containers: [
          {
            name: 'main',
            image: 'busybox:1.35',
            command: ['sh', '-c', 'echo "greeting=$GREETING ip=$POD_IP"; exec sleep 1000'],
            env: [
              { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'settings', key: 'greeting' } } },
              { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            ],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
            readinessProbe: { exec: { command: ['test', '-f', readyFile] }, periodSeconds: 1, failureThreshold: 1 },
          },
        ],
      },
    } as Pod);
    const uid = created.metadata.uid!;
    const get = (): Promise<Pod> => harness.client.resource<Pod>(PODS).get('real', { namespace: 'default' });

    await waitFor(async () => {
      const pod = await get();
      return pod.status?.phase === 'Running' && pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'False' && c.message === 'containers with unready status: [main]') === true;
    }, WAIT);
    assert.ok(existsSync(join(harness.root, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'data')));
    const podIP = (await get()).status?.podIP ?? '';
    const log = join(harness.logsDir, `default_real_${uid}`, 'main', '0.log');
    await waitFor(() => existsSync(log) && readFileSync(log, 'utf8').includes(`greeting=hello-from-configmap ip=${podIP}`), WAIT);

    writeFileSync(readyFile, '');
    await waitFor(async () => (await get()).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True', WAIT);
    realProbes.stop();
  });
});
