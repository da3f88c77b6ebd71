/**
 * `k8ts server` runs the scheduler as a supervised process with its own
 * identity; with no kubelet there is no Node yet, so a pod stays Pending with
 * upstream's message for a cluster without nodes, and is scheduled as soon as
 * a node exists.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LeaseObject } from '../../../src/client/leader-election/leader-elector.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { LEASES, PODS, SERVICE_ACCOUNTS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { startK8ts } from '../testing/k8ts-process.js';
import type { PodObject } from './testing/binding-recorder.js';
import { createReadyNode } from './testing/nodes.js';
import { httpGet } from './testing/scheduler-cluster.js';

describe('k8ts server starts the scheduler', { timeout: 180_000 }, () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-sched-server-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('supervises it with its kubeconfig and pass-through flags; pods wait for a node, then are bound to it', async () => {
    const dataDir = join(root, 'data');
    const server = startK8ts([
      'server',
      '--disable-agent',
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--scheduler-arg=--leader-elect-lease-duration=4s',
      '--scheduler-arg=--leader-elect-renew-deadline=3s',
      '--scheduler-arg=--leader-elect-retry-period=500ms',
    ]);
    let admin: HttpClient | undefined;
    try {
      const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
      const started = await server.waitForLine(/^scheduler: started \(pid \d+\)$/, 30_000);
      const serving = await server.waitForLine(/^scheduler: \/healthz and \/metrics on http:\/\/127\.0\.0\.1:\d+ /, 30_000);
      admin = newHttpClient(restConfigFromKubeconfig(line.slice('export KUBECONFIG='.length).trim()));
      const leases = admin.resource<LeaseObject>(LEASES);
      await waitFor(
        async () => ((await leases.get('kube-scheduler', { namespace: 'kube-system' }).catch(() => undefined))?.spec?.holderIdentity ?? '') !== '',
        { timeoutMs: 60_000, intervalMs: 200, description: 'the scheduler leads' },
      );
      assert.equal((await leases.get('kube-scheduler', { namespace: 'kube-system' })).spec?.leaseDurationSeconds, 4, 'pass-through flags reach it');
      const args = readFileSync(`/proc/${/pid (\d+)/.exec(started)![1]}/cmdline`, 'utf8').split('\0');
      assert.equal(args[args.indexOf('--kubeconfig') + 1], join(dataDir, 'pki', 'scheduler.kubeconfig'));
      const baseUrl = /(http:\/\/127\.0\.0\.1:\d+)/.exec(serving)![1]!;
      assert.equal(args[args.indexOf('--secure-port') + 1], new URL(baseUrl).port);
      assert.deepEqual(await httpGet(`${baseUrl}/healthz`), { status: 200, body: 'ok' });
      assert.ok(existsSync(join(dataDir, 'logs', 'scheduler.log')));

      const pods = admin.resource<PodObject>(PODS);
      // Pods are refused until the ServiceAccount controller has made `default` (ServiceAccount admission).
      await waitFor(async () => (await admin!.resource(SERVICE_ACCOUNTS).get('default', { namespace: 'default' }).catch(() => undefined)) !== undefined, {
        timeoutMs: 60_000,
        intervalMs: 100,
        description: 'the default ServiceAccount',
      });
      await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'waits', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'pause' }] } });
      await waitFor(
        async () => {
          const condition = (await pods.get('waits', { namespace: 'default' })).status?.conditions?.find((c) => c.type === 'PodScheduled');
          return condition?.status === 'False' && condition.reason === 'Unschedulable' && condition.message === 'no nodes available to schedule pods';
        },
        { timeoutMs: 30_000, intervalMs: 100, description: "upstream's PodScheduled=False for a cluster without nodes" },
      );
      // A node appears (as a kubelet would register it): the waiting pod is retried on that event and bound.
      await createReadyNode(admin, { name: 'late-node' });
      await waitFor(async () => (await pods.get('waits', { namespace: 'default' })).spec?.nodeName === 'late-node', { timeoutMs: 30_000, intervalMs: 100, description: 'bound to the new node' });
    } finally {
      admin?.close();
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    assert.match(readFileSync(join(dataDir, 'logs', 'scheduler.log'), 'utf8'), /scheduler: stopped/);
  });
});
