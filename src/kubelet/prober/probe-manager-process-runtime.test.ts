/**
 * The probe manager against the real process runtime: a container that
 * serves HTTP on its own pod IP, probed by httpGet (named port) for
 * readiness and by exec for liveness, killed and restarted as the pod
 * workers would.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../client/testing/wait-for.js';
import { newProcessRuntime } from '../runtime/process/process-runtime.js';
import type { Pod } from '../types.js';
import type { ProbeManager } from './interface.js';
import { newProbeManager } from './probe-manager.js';
import { startProcessContainer, type ProcessContainer } from './testing/process-container.js';
import { newRecordingEvents } from './testing/recording-events.js';

const SECOND_MS = 25;
const SLACK = 200; // 5 s: healthy probes never time out on a busy machine

const SERVER = `
const fs = require('node:fs');
require('node:http')
  .createServer((_req, res) => { res.statusCode = fs.existsSync(process.env.UNREADY) ? 503 : 200; res.end(); })
  .listen(8080, process.env.POD_IP);
`;

describe('probe manager on the process runtime', () => {
  let root: string;
  let container: ProcessContainer;
  let manager: ProbeManager;
  const recorder = newRecordingEvents();
  const changes: string[] = [];
  const failures: { containerId: string; kind: string; message: string }[] = [];
  let unready: string;
  let dead: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'k8ts-probe-manager-'));
    unready = join(root, 'unready');
    dead = join(root, 'dead');
    const { runtime } = newProcessRuntime({ stateDir: join(root, 'state'), imagesDir: join(root, 'images'), podCIDR: '127.244.92.0/24', pollIntervalMs: 5 });
    container = await startProcessContainer(runtime, root, { command: [process.execPath, '-e', SERVER], env: { UNREADY: unready } });
    manager = newProbeManager({
      runtime,
      events: recorder,
      onChange: (podUid) => changes.push(podUid),
      onFailure: (_podUid, _name, containerId, kind, message) => failures.push({ containerId, kind, message }),
      secondMs: SECOND_MS,
    });
  });
  after(async () => {
    manager.stop();
    await container.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'web-uid' },
    spec: {
      containers: [
        {
          name: 'app',
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { port: 'http', path: '/ready' }, periodSeconds: 1, timeoutSeconds: SLACK, failureThreshold: 1 },
          livenessProbe: { exec: { command: ['sh', '-c', `test ! -e $(DEAD)`] }, periodSeconds: 1, timeoutSeconds: SLACK, failureThreshold: 2 },
          env: [{ name: 'DEAD', value: '' }],
        },
      ],
    },
  };

  it('becomes ready through httpGet on the pod IP, flips with the server, and kills on exec liveness failure', async () => {
    pod.spec!.containers[0]!.env = [{ name: 'DEAD', value: dead }];
    manager.containerStarted(pod, 'app', container.containerId, container.podIP);
    await waitFor(() => manager.isReady('web-uid', 'app'), { description: 'ready', timeoutMs: 20_000 });

    writeFileSync(unready, '');
    await waitFor(() => !manager.isReady('web-uid', 'app'), { description: 'not ready', timeoutMs: 20_000 });
    assert.ok(recorder.events.some((e) => e.message === 'Readiness probe failed: HTTP probe failed with statuscode: 503'));
    unlinkSync(unready);
    await waitFor(() => manager.isReady('web-uid', 'app'), { description: 'ready again', timeoutMs: 20_000 });
    assert.equal(failures.length, 0);

    writeFileSync(dead, '');
    await waitFor(() => failures.length === 1, { description: 'liveness kill', timeoutMs: 20_000 });
    assert.deepEqual(failures[0], { containerId: container.containerId, kind: 'liveness', message: 'Container app failed liveness probe, will be restarted' });
    assert.ok(recorder.events.some((e) => e.reason === 'Unhealthy' && e.message === 'Liveness probe failed: '));
  });

  it('sees the killed container exit, then probes its replacement', async () => {
    const changesBefore = changes.length;
    await container.runtime.stopContainer(container.containerId, 0);
    // Not started: the worker saw the exit (a refused readiness probe alone would only clear ready).
    await waitFor(() => !manager.isStarted('web-uid', 'app'), { description: 'not started after exit', timeoutMs: 20_000 });
    assert.equal(manager.isReady('web-uid', 'app'), false);
    assert.ok(changes.length > changesBefore);

    unlinkSync(dead);
    const replacement = await container.restart();
    manager.containerStarted(pod, 'app', replacement, container.podIP);
    await waitFor(() => manager.isReady('web-uid', 'app'), { description: 'replacement ready', timeoutMs: 20_000 });
    assert.equal(failures.length, 1);
  });
});
