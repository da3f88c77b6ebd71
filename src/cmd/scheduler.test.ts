/**
 * The command's own behaviour with a stand-in for the scheduler library and no
 * leader election (so no request reaches the kubeconfig's server): errors of
 * the configuration, of building the scheduler and of serving; /healthz and
 * /metrics; exit reasons. Leader election between processes is in
 * test/e2e/scheduler/.
 */
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SchedulerConfiguration } from '../scheduler/config/types.js';
import type { Scheduler, SchedulerOptions } from '../scheduler/scheduler-options.js';
import { waitFor } from '../client/testing/wait-for.js';
import { freePort } from './network-defaults.js';
import { runScheduler } from './scheduler.js';
import { DEFAULT_SCHEDULER_LEADER_ELECTION, type SchedulerFlags } from './scheduler-flags.js';
import type { SchedulerRuntime } from './scheduler-runtime.js';

const CONFIG: SchedulerConfiguration = {
  percentageOfNodesToScore: 0,
  podInitialBackoffSeconds: 1,
  podMaxBackoffSeconds: 10,
  profiles: [{ schedulerName: 'default-scheduler' }],
  leaderElection: { ...DEFAULT_SCHEDULER_LEADER_ELECTION, leaderElect: false },
};

function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** A scheduler whose run() does what `behaviour` says with the signal it gets. */
function runtimeWith(behaviour: (signal: AbortSignal) => Promise<void>, seen: { options?: SchedulerOptions; runs: number } = { runs: 0 }): SchedulerRuntime {
  return {
    loadConfiguration: () => CONFIG,
    newScheduler: (options): Scheduler => {
      seen.options = options;
      return {
        run: (signal) => {
          seen.runs++;
          return behaviour(signal);
        },
        pendingPods: () => ({ active: 0, backoff: 0, unschedulable: 0, gated: 0 }),
      };
    },
  };
}

const untilAborted = (signal: AbortSignal): Promise<void> => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

describe('k8ts scheduler (the command, with a stand-in scheduler)', { timeout: 60_000 }, () => {
  let dir: string;
  let flags: SchedulerFlags;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-scheduler-cmd-'));
    const kubeconfig = join(dir, 'scheduler.kubeconfig');
    // Nothing listens there: without leader election and with a stand-in scheduler, no request is sent.
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    flags = {
      kubeconfig,
      securePort: await freePort(),
      bindAddress: '127.0.0.1',
      kubeApiQps: 50,
      kubeApiBurst: 100,
      leaderElect: false,
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRetryPeriod: 2_000,
      leaderElectResourceName: 'kube-scheduler',
      leaderElectResourceNamespace: 'kube-system',
    };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('schedules until stopped, serving /healthz and /metrics meanwhile, and hands the library its parts', async () => {
    const stop = new AbortController();
    const seen: { options?: SchedulerOptions; runs: number } = { runs: 0 };
    let runSignal: AbortSignal | undefined;
    const exit = runScheduler(flags, {
      runtime: runtimeWith((signal) => {
        runSignal = signal;
        return untilAborted(signal);
      }, seen),
      signal: stop.signal,
    });
    const base = `http://127.0.0.1:${flags.securePort}`;
    try {
      await waitFor(() => seen.runs === 1, { description: 'the scheduler runs' });
      assert.deepEqual(await httpGet(`${base}/healthz`), { status: 200, body: 'ok' });
    const metrics = await httpGet(`${base}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^process_resident_memory_bytes \d+/m);
    assert.doesNotMatch(metrics.body, /leader_election_master_status\{/, 'no election, no master status');
    assert.deepEqual(seen.options?.config, CONFIG);
    assert.ok(seen.options?.metricsRegistry, 'the scheduler registers its metrics where /metrics serves them');
      assert.equal(runSignal?.aborted, false);
    } finally {
      stop.abort();
    }
    assert.deepEqual(await exit, { reason: 'stopped' });
    assert.equal(runSignal?.aborted, true);
    await assert.rejects(httpGet(`${base}/healthz`), /ECONNREFUSED/, 'no longer serving');
  });

  it('fails when the scheduler fails, or ends by itself', async () => {
    const failed = await runScheduler(flags, { runtime: runtimeWith(() => Promise.reject(new Error('cache exploded'))) });
    assert.equal(failed.reason, 'failed');
    assert.match(String((failed as { error: Error }).error.message), /cache exploded/);
    const ended = await runScheduler(flags, { runtime: runtimeWith(() => Promise.resolve()) });
    assert.equal(ended.reason, 'failed');
    assert.match(String((ended as { error: Error }).error.message), /the scheduler stopped by itself/);
  });

  it('refuses a missing kubeconfig, a bad --config file, a configuration the library refuses and a taken port', async () => {
    const { kubeconfig: _, ...noKubeconfig } = flags;
    await assert.rejects(runScheduler(noKubeconfig, { runtime: runtimeWith(untilAborted) }), /--kubeconfig is required/);

    const badFile: SchedulerRuntime = {
      ...runtimeWith(untilAborted),
      loadConfiguration: () => {
        throw new Error('profiles[0].schedulerName: Required value');
      },
    };
    await assert.rejects(runScheduler({ ...flags, config: '/etc/sched.yaml' }, { runtime: badFile }), /^Error: invalid --config \/etc\/sched.yaml: profiles\[0\]\.schedulerName: Required value$/);

    const refused: SchedulerRuntime = {
      ...runtimeWith(untilAborted),
      newScheduler: () => {
        throw new Error('"NoSuchPlugin" does not exist');
      },
    };
    await assert.rejects(runScheduler(flags, { runtime: refused }), /"NoSuchPlugin" does not exist/);

    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(flags.securePort, '127.0.0.1', resolve));
    try {
      await assert.rejects(runScheduler(flags, { runtime: runtimeWith(untilAborted) }), new RegExp(`cannot serve on 127.0.0.1:${flags.securePort}: .*EADDRINUSE`));
    } finally {
      holder.close();
    }
  });

  it('refuses leader election timers upstream refuses, from the flags over the file', async () => {
    const withElection: SchedulerRuntime = { ...runtimeWith(untilAborted), loadConfiguration: () => ({ ...CONFIG, leaderElection: DEFAULT_SCHEDULER_LEADER_ELECTION }) };
    await assert.rejects(
      runScheduler({ ...flags, leaderElectLeaseDuration: 5_000 }, { runtime: withElection, givenOnCommandLine: (a) => a === 'leaderElectLeaseDuration' }),
      /leaseDuration must be greater than renewDeadline/,
    );
  });
});
