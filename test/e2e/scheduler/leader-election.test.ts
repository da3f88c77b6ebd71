/**
 * Two `k8ts scheduler` processes with leader election against one real API
 * server: only the holder of kube-system/kube-scheduler schedules, every pod
 * is bound exactly once (counted on a watch and by Scheduled events), the
 * standby takes over at once when the leader stops, and a scheduler whose
 * Lease is taken exits 1. Also the command's errors, as a process.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Event } from 'kubernetes-types/core/v1.js';
import type { LeaseObject } from '../../../src/client/leader-election/leader-elector.js';
import { EVENTS, LEASES, NAMESPACES, PODS, SERVICE_ACCOUNTS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { isConflict, isNotFound } from '../../../src/machinery/status.js';
import { runK8ts } from '../testing/k8ts-process.js';
import { recordBindings, type BindingRecorder, type PodObject } from './testing/binding-recorder.js';
import { createReadyNode } from './testing/nodes.js';
import { httpGet, metricValue, SHORT_LEADER_ELECTION, startSchedulerCluster, type SchedulerCluster, type SchedulerProcess } from './testing/scheduler-cluster.js';

const NS = 'le';
const MASTER_STATUS = 'leader_election_master_status{name="kube-scheduler"}';

describe('k8ts scheduler: two schedulers with leader election', { timeout: 240_000 }, () => {
  let cluster: SchedulerCluster;
  let recorder: BindingRecorder;

  const lease = async (): Promise<LeaseObject | undefined> => {
    try {
      return await cluster.admin.resource<LeaseObject>(LEASES).get('kube-scheduler', { namespace: 'kube-system' });
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const holder = async (): Promise<string> => (await lease())?.spec?.holderIdentity ?? '';
  const masterStatus = async (s: SchedulerProcess): Promise<number | undefined> => metricValue((await httpGet(`${s.baseUrl}/metrics`)).body, MASTER_STATUS);

  const createPods = async (prefix: string, count: number): Promise<string[]> => {
    const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    await Promise.all(
      names.map((name) =>
        cluster.admin.resource<PodObject>(PODS).create({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: NS },
          spec: { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu: '10m' } } }] },
        }),
      ),
    );
    return names;
  };
  const allBound = (names: readonly string[]): Promise<void> =>
    waitFor(() => names.every((n) => recorder.nodeOf(n) !== undefined), { timeoutMs: 60_000, intervalMs: 20, description: `${names.length} pods bound` });

  before(async () => {
    cluster = await startSchedulerCluster('scheduler-le');
    for (const name of ['n1', 'n2', 'n3']) await createReadyNode(cluster.admin, { name, zone: `zone-${name}` });
    await cluster.admin.resource(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // No ServiceAccount controller runs here: the test makes the ServiceAccount pods need (ServiceAccount admission).
    await cluster.admin.resource(SERVICE_ACCOUNTS).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } });
    recorder = await recordBindings(cluster.admin, NS);
  });

  after(async () => {
    recorder?.stop();
    await cluster?.stop();
  });

  it('binds each pod exactly once while two schedulers run, and hands over at once when the leader gets SIGTERM', async () => {
    const a = await cluster.startScheduler(SHORT_LEADER_ELECTION);
    const b = await cluster.startScheduler(SHORT_LEADER_ELECTION);
    await waitFor(async () => [a.identity, b.identity].includes(await holder()), { timeoutMs: 30_000, intervalMs: 100, description: 'one scheduler holds the Lease' });
    const first = (await lease())!;
    const [leader, standby] = first.spec!.holderIdentity === a.identity ? [a, b] : [b, a];
    assert.equal(first.spec!.leaseDurationSeconds, 4);
    await waitFor(async () => (await masterStatus(leader)) === 1 && (await masterStatus(standby)) === 0, { timeoutMs: 10_000, intervalMs: 100, description: 'master status' });
    assert.deepEqual(await httpGet(`${standby.baseUrl}/healthz`), { status: 200, body: 'ok' });

    const firstBatch = await createPods('one', 30);
    await allBound(firstBatch);

    assert.equal(await leader.process.stop('SIGTERM'), 0);
    assert.match(leader.process.output(), /scheduler: stopped/);
    // Released on stop: the standby takes it after one retry period, not a lease duration.
    await waitFor(async () => (await holder()) === standby.identity, { timeoutMs: 15_000, intervalMs: 50, description: 'the standby takes over' });
    await waitFor(async () => (await masterStatus(standby)) === 1, { timeoutMs: 10_000, intervalMs: 100, description: 'the standby reports master' });
    const secondBatch = await createPods('two', 30);
    await allBound(secondBatch);

    for (const name of [...firstBatch, ...secondBatch]) assert.deepEqual(recorder.bindings.get(name)?.length, 1, `${name} bound once`);
    // One Scheduled event per pod (Events are written asynchronously: wait for all): no scheduler bound a pod the other had bound.
    const all = [...firstBatch, ...secondBatch];
    let perPod = new Map<string, number>();
    await waitFor(
      async () => {
        const scheduled = ((await cluster.admin.resource<KubeObject & Event>(EVENTS).list({ namespace: NS })).items as Event[]).filter((e) => e.reason === 'Scheduled');
        perPod = new Map<string, number>();
        for (const e of scheduled) perPod.set(e.involvedObject.name ?? '', (perPod.get(e.involvedObject.name ?? '') ?? 0) + (e.count ?? 1));
        return all.every((name) => perPod.has(name));
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'a Scheduled event for every pod' },
    );
    for (const name of all) assert.equal(perPod.get(name), 1, `one Scheduled event for ${name}`);

    assert.equal(await standby.process.stop('SIGTERM'), 0);
    assert.equal(await holder(), '', 'the last one released it too');
  });

  it('exits 1 when its Lease is taken, without releasing it', async () => {
    const s = await cluster.startScheduler(SHORT_LEADER_ELECTION);
    await waitFor(async () => (await holder()) === s.identity, { timeoutMs: 30_000, intervalMs: 100, description: 'it leads' });
    // The scheduler renews the Lease every few hundred ms here: a renewal between our read and our write is a Conflict, so read again.
    await waitFor(
      async () => {
        const current = (await lease())!;
        try {
          await cluster.admin.resource<LeaseObject>(LEASES).update({ ...current, spec: { ...current.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 } });
          return true;
        } catch (e: unknown) {
          if (isConflict(e)) return false;
          throw e;
        }
      },
      { timeoutMs: 30_000, intervalMs: 10, description: 'the intruder takes the Lease' },
    );
    await s.process.waitForLine(/^scheduler: lost the leader lease; exiting$/, 30_000);
    const code = await new Promise<number | string>((resolve) => {
      const { child } = s.process;
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode!);
      else child.once('exit', (c, sig) => resolve(c ?? sig ?? 'unknown'));
    });
    assert.equal(code, 1);
    assert.equal(await holder(), 'intruder');
    await cluster.admin.resource(LEASES).delete('kube-scheduler', { namespace: 'kube-system' });
  });

  it('refuses a missing kubeconfig, a bad duration and a bad --config file with clear messages', async () => {
    const noKubeconfig = await runK8ts(['scheduler', '--secure-port', '0']);
    assert.equal(noKubeconfig.code, 1);
    assert.match(noKubeconfig.output, /error: --kubeconfig is required/);

    const duration = await runK8ts(['scheduler', '--kubeconfig', cluster.schedulerKubeconfig, '--leader-elect-retry-period', '2']);
    assert.notEqual(duration.code, 0);
    assert.match(duration.output, /invalid duration "2"/);

    const timers = await runK8ts(['scheduler', '--kubeconfig', cluster.schedulerKubeconfig, '--secure-port', '0', '--leader-elect-renew-deadline=20s']);
    assert.equal(timers.code, 1);
    assert.match(timers.output, /error: leaseDuration must be greater than renewDeadline/);

    const file = join(cluster.dataDir, 'bad-scheduler-config.yaml');
    await writeFile(file, 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: {not: a list}\n');
    const bad = await runK8ts(['scheduler', '--kubeconfig', cluster.schedulerKubeconfig, '--secure-port', '0', '--config', file]);
    assert.equal(bad.code, 1);
    assert.match(bad.output, /error: .*bad-scheduler-config\.yaml.*profiles/);
  });
});
