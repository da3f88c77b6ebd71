import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InformerFactory } from '../client/cache/interfaces.js';
import type { LeaseObject } from '../client/leader-election/leader-elector.js';
import { LEASES } from '../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../client/testing/fake-client.js';
import { waitFor } from '../client/testing/wait-for.js';
import { newLogger } from '../machinery/logger.js';
import type { ControllerContext, ControllerDefinition } from './context.js';
import { defaultLeaderElectionSettings, resyncPeriodMs, startControllerManager, type ControllerManager } from './manager.js';
import { defaultControllerManagerOptions } from './options.js';
import type { EventRecorderFactory } from '../client/record/interface.js';

const logger = newLogger('test', { level: 'silent' });
const noEvents: EventRecorderFactory = { recorderFor: () => ({ event: () => {} }) };

/** Records what the manager does with the informer factory. */
function stubInformers(log: string[]): (client: unknown, o: { resyncPeriodMs: number }) => InformerFactory {
  return (_client, o) => {
    log.push(`factory resync=${o.resyncPeriodMs}`);
    return {
      informerFor: () => {
        throw new Error('not in this test');
      },
      start: () => void log.push('informers start'),
      waitForCacheSync: async () => {},
      stop: () => void log.push('informers stop'),
    };
  };
}

function recordingController(name: string, log: string[], contexts: ControllerContext[] = [], enabledByDefault = true): ControllerDefinition {
  return {
    name,
    enabledByDefault,
    start: (ctx) => {
      log.push(`start ${name}`);
      contexts.push(ctx);
    },
  };
}

const FAST = defaultLeaderElectionSettings({ leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 });

function manager(client: FakeClient, log: string[], contexts: ControllerContext[], leaderElect = true): ControllerManager {
  return startControllerManager({
    client,
    newInformerFactory: stubInformers(log),
    events: noEvents,
    definitions: [recordingController('replicaset', log, contexts), recordingController('deployment', log, contexts), recordingController('off', log, contexts, false)],
    controllers: ['*'],
    options: defaultControllerManagerOptions({ minResyncPeriodMs: 1000 }),
    leaderElection: { ...FAST, leaderElect },
    logger,
    random: () => 0.5,
  });
}

const lease = (client: FakeClient): Promise<LeaseObject> => client.resource<LeaseObject>(LEASES).get('kube-controller-manager', { namespace: 'kube-system' });

describe('controller manager', () => {
  it('without leader election starts the enabled controllers, then the shared informers, and stops them', async () => {
    const log: string[] = [];
    const contexts: ControllerContext[] = [];
    const m = manager(newFakeClient(), log, contexts, false);
    await waitFor(() => log.includes('informers start'));
    assert.deepEqual(log, ['factory resync=1500', 'start replicaset', 'start deployment', 'informers start']);
    assert.equal(contexts[0]!.informers, contexts[1]!.informers, 'one informer factory for all');
    assert.equal(m.leading, true);
    assert.equal(m.identity, '');
    assert.deepEqual(await m.stop(), { reason: 'stopped' });
    assert.ok(contexts.every((c) => c.signal.aborted));
    assert.equal(log.at(-1), 'informers stop');
  });

  it('refuses an unknown controller before doing anything', () => {
    const client = newFakeClient();
    assert.throws(
      () =>
        startControllerManager({
          client,
          newInformerFactory: stubInformers([]),
          events: noEvents,
          definitions: [recordingController('replicaset', [])],
          controllers: ['*', 'replicaseet'],
          options: defaultControllerManagerOptions(),
          leaderElection: FAST,
          logger,
        }),
      /"replicaseet" is not in the list of known controllers; known controllers: replicaset/,
    );
    assert.equal(client.actionsOf().length, 0);
  });

  it('with leader election runs controllers in one manager only; stopping it hands over at once', async () => {
    const client = newFakeClient();
    const logA: string[] = [];
    const logB: string[] = [];
    const a = manager(client, logA, []);
    await waitFor(() => logA.includes('informers start'), { description: 'a leads' });
    const b = manager(client, logB, []);
    await waitFor(async () => (await lease(client)).spec?.leaseTransitions === 0 && Number((await lease(client)).metadata.resourceVersion) > 4, { description: 'a renews' });
    await waitFor(() => b.leading === false && logB.length === 0);
    assert.equal((await lease(client)).spec?.holderIdentity, a.identity);
    assert.deepEqual(await a.stop(), { reason: 'stopped' });
    assert.equal(logA.at(-1), 'informers stop');
    await waitFor(() => logB.includes('informers start'), { description: 'b leads', timeoutMs: 3000 });
    assert.equal((await lease(client)).spec?.holderIdentity, b.identity);
    assert.deepEqual(await b.stop(), { reason: 'stopped' });
    assert.equal((await lease(client)).spec?.holderIdentity, '', 'released on stop');
  });

  it('ends with lost-leadership, controllers aborted, when the Lease is taken', async () => {
    const client = newFakeClient();
    const log: string[] = [];
    const contexts: ControllerContext[] = [];
    const m = manager(client, log, contexts);
    await waitFor(() => log.includes('informers start'));
    const current = await lease(client);
    await client.resource<LeaseObject>(LEASES).update({ ...current, spec: { ...current.spec, holderIdentity: 'other', leaseDurationSeconds: 3600 } });
    assert.deepEqual(await m.exited, { reason: 'lost-leadership' });
    assert.equal(m.leading, false);
    assert.ok(contexts.every((c) => c.signal.aborted));
    assert.equal(log.at(-1), 'informers stop');
    assert.equal((await lease(client)).spec?.holderIdentity, 'other', 'a manager that lost the Lease does not release it');
  });

  it('ends with failed when a controller cannot start', async () => {
    const client = newFakeClient();
    const failing: ControllerDefinition = {
      name: 'broken',
      enabledByDefault: true,
      start: () => {
        throw new Error('no luck');
      },
    };
    const m = startControllerManager({
      client,
      newInformerFactory: stubInformers([]),
      events: noEvents,
      definitions: [failing],
      options: defaultControllerManagerOptions(),
      leaderElection: FAST,
      logger,
    });
    const exit = await m.exited;
    assert.equal(exit.reason, 'failed');
    assert.match(String((exit as { error: Error }).error.message), /no luck/);
    assert.equal((await lease(client)).spec?.holderIdentity, '', 'the Lease is released');
  });

  it('picks the resync period in [1, 2) × --min-resync-period', () => {
    assert.equal(resyncPeriodMs(1000, () => 0), 1000);
    assert.equal(resyncPeriodMs(1000, () => 0.999), 1999);
  });
});
