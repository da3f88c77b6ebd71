import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceUnavailable } from '../../machinery/status.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { Client, ResourceRef } from '../rest/interface.js';
import { LEASES } from '../rest/resources.js';
import { newFakeClient, type FakeClient } from '../testing/fake-client.js';
import { waitFor } from '../testing/wait-for.js';
import { formatMicroTime, LeaderElector, validateLeaderElectionTimers, type LeaseObject } from './leader-elector.js';

const TIMERS = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

interface Candidate {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly run: Promise<void>;
  started: number;
  stopped: number;
  leadingSignal?: AbortSignal;
  readonly leaders: string[];
}

function candidate(client: FakeClient, identity: string, timers = TIMERS): Candidate {
  const stop = new AbortController();
  const c: Partial<Candidate> & { started: number; stopped: number; leaders: string[] } = { started: 0, stopped: 0, leaders: [] };
  const elector = new LeaderElector({
    client,
    namespace: 'kube-system',
    name: 'kube-controller-manager',
    identity,
    ...timers,
    callbacks: {
      onStartedLeading: (signal) => {
        c.started++;
        c.leadingSignal = signal;
      },
      onStoppedLeading: () => void c.stopped++,
      onNewLeader: (holder) => void c.leaders.push(holder),
    },
  });
  return Object.assign(c, { elector, stop, run: elector.run(stop.signal) }) as Candidate;
}

const lease = (client: FakeClient): Promise<LeaseObject> => client.resource<LeaseObject>(LEASES).get('kube-controller-manager', { namespace: 'kube-system' });

describe('LeaderElector', () => {
  it('lets exactly one of two candidates lead, renewing the Lease', async () => {
    const client = newFakeClient();
    const a = candidate(client, 'a');
    const b = candidate(client, 'b');
    try {
      await waitFor(() => a.started + b.started === 1, { description: 'one leader' });
      const [leader, other] = a.started === 1 ? [a, b] : [b, a];
      const first = await lease(client);
      assert.equal(first.spec?.holderIdentity, leader.elector.identity);
      assert.equal(first.spec?.leaseDurationSeconds, 1);
      assert.equal(first.spec?.leaseTransitions, 0);
      // Several renewals later the other still has not led, and knows who leads.
      await waitFor(async () => (await lease(client)).spec?.renewTime !== first.spec?.renewTime, { description: 'a renewal' });
      await waitFor(async () => Number((await lease(client)).metadata.resourceVersion) > Number(first.metadata.resourceVersion) + 3, { description: 'more renewals' });
      await waitFor(() => other.elector.leader === leader.elector.identity, { description: 'the other candidate observes the leader' });
      assert.equal(other.started, 0);
      assert.equal(other.elector.isLeader, false);
      assert.deepEqual(other.leaders, [leader.elector.identity]);
      assert.equal((await lease(client)).spec?.acquireTime, first.spec?.acquireTime, 'renewals keep the acquire time');
    } finally {
      a.stop.abort();
      b.stop.abort();
      await Promise.all([a.run, b.run]);
    }
    assert.equal(a.stopped, 1);
    assert.equal(b.stopped, 1, 'onStoppedLeading runs once even for a candidate that never led');
  });

  it('releases the Lease on stop so that the other candidate takes over at once', async () => {
    const client = newFakeClient();
    const a = candidate(client, 'a');
    await waitFor(() => a.started === 1);
    const b = candidate(client, 'b', { ...TIMERS, leaseDurationMs: 60_000, renewDeadlineMs: 600 });
    await waitFor(() => b.leaders.includes('a'), { description: 'b sees a lead' });
    a.stop.abort();
    await a.run;
    assert.equal(a.leadingSignal?.aborted, true);
    assert.equal(a.stopped, 1);
    // b would wait 60 s for an expired Lease; a released one is free now.
    await waitFor(() => b.started === 1, { description: 'b leads', timeoutMs: 5000 });
    const l = await lease(client);
    assert.equal(l.spec?.holderIdentity, 'b');
    assert.equal(l.spec?.leaseTransitions, 1);
    b.stop.abort();
    await b.run;
    assert.equal((await lease(client)).spec?.holderIdentity, '', 'b released it too');
  });

  it('stops leading when another holder takes the Lease (it cannot renew within the deadline), without releasing it', async () => {
    const client = newFakeClient();
    const a = candidate(client, 'a');
    await waitFor(() => a.started === 1);
    const current = await lease(client);
    await client.resource<LeaseObject>(LEASES).update({ ...current, spec: { ...current.spec, holderIdentity: 'thief', leaseDurationSeconds: 3600 } });
    await a.run; // ends by itself
    assert.equal(a.leadingSignal?.aborted, true);
    assert.equal(a.stopped, 1);
    assert.equal(a.elector.isLeader, false);
    assert.equal((await lease(client)).spec?.holderIdentity, 'thief');
    assert.ok(a.leaders.includes('thief'));
  });

  it('stops leading when the API server stays unreachable past the renew deadline', async () => {
    const client = newFakeClient();
    const a = candidate(client, 'a');
    await waitFor(() => a.started === 1);
    client.injectError('*', 'leases', serviceUnavailable('the server is currently unable to handle the request'), 1000);
    await a.run;
    assert.equal(a.leadingSignal?.aborted, true);
    assert.equal(a.stopped, 1);
  });

  it('takes a Lease whose holder stopped renewing only after a lease duration of its own observation', async () => {
    const client = newFakeClient();
    const leases = client.resource<LeaseObject>(LEASES);
    // renewTime is far in the past by the holder's clock: that is not trusted.
    await leases.create({
      metadata: { name: 'kube-controller-manager', namespace: 'kube-system' },
      spec: { holderIdentity: 'dead', leaseDurationSeconds: 10, renewTime: formatMicroTime(0), acquireTime: formatMicroTime(0), leaseTransitions: 4 },
    });
    let t = 1_000_000;
    const elector = new LeaderElector({
      client,
      namespace: 'kube-system',
      name: 'kube-controller-manager',
      identity: 'next',
      now: () => t,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    });
    assert.equal(await elector.tryAcquireOrRenew(), false, 'first observation');
    t += 9_999;
    assert.equal(await elector.tryAcquireOrRenew(), false, 'not yet a lease duration since it was first seen');
    t += 2;
    assert.equal(await elector.tryAcquireOrRenew(), true);
    const l = await leases.get('kube-controller-manager', { namespace: 'kube-system' });
    assert.equal(l.spec?.holderIdentity, 'next');
    assert.equal(l.spec?.leaseTransitions, 5);
    assert.equal(l.spec?.leaseDurationSeconds, 15, "upstream's default lease duration");
    assert.equal(l.spec?.acquireTime, formatMicroTime(t));
  });

  it('restarts its observation when the holder renews', async () => {
    const client = newFakeClient();
    const leases = client.resource<LeaseObject>(LEASES);
    const created = await leases.create({
      metadata: { name: 'kube-controller-manager', namespace: 'kube-system' },
      spec: { holderIdentity: 'alive', leaseDurationSeconds: 10, renewTime: formatMicroTime(1), leaseTransitions: 0 },
    });
    let t = 0;
    const elector = new LeaderElector({ client, namespace: 'kube-system', name: 'kube-controller-manager', identity: 'next', now: () => t, callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} } });
    assert.equal(await elector.tryAcquireOrRenew(), false);
    t = 9_000;
    await leases.update({ ...created, spec: { ...created.spec, renewTime: formatMicroTime(2) } });
    assert.equal(await elector.tryAcquireOrRenew(), false);
    t = 12_000;
    assert.equal(await elector.tryAcquireOrRenew(), false, 'the renewal seen at 9 s holds it until 19 s');
    t = 19_001;
    assert.equal(await elector.tryAcquireOrRenew(), true);
  });

  it('never throws on API errors: an attempt just fails', async () => {
    const client = newFakeClient();
    const elector = new LeaderElector({ client, namespace: 'kube-system', name: 'l', identity: 'x', callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} } });
    client.injectError('get', 'leases', serviceUnavailable('down'));
    assert.equal(await elector.tryAcquireOrRenew(), false);
    client.injectError('create', 'leases', serviceUnavailable('down'));
    assert.equal(await elector.tryAcquireOrRenew(), false);
    assert.equal(await elector.tryAcquireOrRenew(), true);
    client.injectError('update', 'leases', serviceUnavailable('down'));
    assert.equal(await elector.tryAcquireOrRenew(), false);
    assert.equal(await elector.release(), true);
    assert.equal((await client.resource<LeaseObject>(LEASES).get('l', { namespace: 'kube-system' })).spec?.holderIdentity, '');
    client.clearActions();
    assert.equal(await elector.release(), true, 'releasing a Lease it does not hold writes nothing');
    assert.equal(client.actionsOf('update', 'leases').length, 0);
  });

  it('releases a Lease whose resourceVersion moved on since it last looked (a renewal that landed late), and leaves one now held by another', async () => {
    const client = newFakeClient();
    const leases = client.resource<LeaseObject>(LEASES);
    const elector = new LeaderElector({ client, namespace: 'kube-system', name: 'l', identity: 'x', callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} } });
    assert.equal(await elector.tryAcquireOrRenew(), true);
    const held = await leases.get('l', { namespace: 'kube-system' });
    await leases.update({ ...held, spec: { ...held.spec, renewTime: formatMicroTime(Date.now() + 1000) } });
    assert.equal(await elector.release(), true);
    assert.equal((await leases.get('l', { namespace: 'kube-system' })).spec?.holderIdentity, '');

    assert.equal(await elector.tryAcquireOrRenew(), true);
    const again = await leases.get('l', { namespace: 'kube-system' });
    await leases.update({ ...again, spec: { ...again.spec, holderIdentity: 'y' } });
    assert.equal(await elector.release(), true, 'not ours any more: nothing to release');
    assert.equal((await leases.get('l', { namespace: 'kube-system' })).spec?.holderIdentity, 'y');

    const third = new LeaderElector({ client, namespace: 'kube-system', name: 'm', identity: 'x', callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} } });
    assert.equal(await third.tryAcquireOrRenew(), true);
    client.injectError('update', 'leases', serviceUnavailable('down'));
    assert.equal(await third.release(), false, 'an API error other than a conflict ends the release');
  });

  it('does not start a run that is already stopped', async () => {
    const client = newFakeClient();
    const c = { started: 0, stopped: 0 };
    const elector = new LeaderElector({
      client,
      namespace: 'kube-system',
      name: 'l',
      callbacks: { onStartedLeading: () => void c.started++, onStoppedLeading: () => void c.stopped++ },
    });
    assert.match(elector.identity, /^.+_[0-9a-f-]{36}$/, 'hostname_uuid');
    await elector.run(AbortSignal.abort());
    assert.deepEqual(c, { started: 0, stopped: 1 });
    assert.equal(client.actionsOf().length, 0);
  });

  it('stops at once while an attempt hangs on an API server that does not answer', async () => {
    const fake = newFakeClient();
    const hanging: Client = {
      resource: <T extends KubeObject>(ref: ResourceRef) => ({ ...fake.resource<T>(ref), get: () => new Promise<T>(() => {}) }),
    };
    let stopped = 0;
    const elector = new LeaderElector({
      client: hanging,
      namespace: 'kube-system',
      name: 'l',
      leaseDurationMs: 3_600_000,
      renewDeadlineMs: 1_800_000,
      retryPeriodMs: 1000,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => void stopped++ },
    });
    const stop = new AbortController();
    const run = elector.run(stop.signal);
    await new Promise((r) => setImmediate(r));
    stop.abort();
    await run; // would take half an hour without the abort
    assert.equal(stopped, 1);
  });

  it('refuses timers upstream refuses', () => {
    assert.throws(() => validateLeaderElectionTimers(10_000, 10_000, 2_000), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => validateLeaderElectionTimers(15_000, 2_000, 2_000), /renewDeadline must be greater than retryPeriod\*JitterFactor/);
    assert.doesNotThrow(() => validateLeaderElectionTimers(15_000, 10_000, 2_000));
    const client = newFakeClient();
    assert.throws(() => new LeaderElector({ client, namespace: 'n', name: 'l', identity: '', callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} } }), /non-empty identity/);
  });
});
