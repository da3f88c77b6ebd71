/**
 * `k8ts controller-manager` as processes against one real API server: leader
 * election on the Lease kube-system/kube-controller-manager with short timers,
 * hand-over on SIGTERM, exit on a lost Lease, and flag errors.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LeaseObject } from '../../../src/client/leader-election/leader-elector.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { LEASES } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { isNotFound } from '../../../src/machinery/status.js';
import { runK8ts, startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';

const SHORT_TIMERS = ['--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=500ms'];

interface Manager {
  readonly process: K8tsProcess;
  readonly identity: string;
  readonly metricsUrl: string;
}

function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('k8ts controller-manager: leader election between processes', { timeout: 180_000 }, () => {
  let root: string;
  let apiserver: K8tsProcess;
  let admin: HttpClient;
  let cmKubeconfig: string;
  const managers: K8tsProcess[] = [];

  const startManager = async (...extra: string[]): Promise<Manager> => {
    const p = startK8ts(['controller-manager', '--kubeconfig', cmKubeconfig, '--secure-port', '0', ...SHORT_TIMERS, ...extra]);
    managers.push(p);
    const serving = await p.waitForLine(/^controller-manager: serving \/healthz and \/metrics on /, 60_000);
    const idLine = await p.waitForLine(/^controller-manager: leader election identity /, 10_000);
    return {
      process: p,
      identity: /identity (\S+) on lease/.exec(idLine)![1]!,
      metricsUrl: serving.slice(serving.indexOf('http://')).trim(),
    };
  };

  const lease = async (): Promise<LeaseObject | undefined> => {
    try {
      return await admin.resource<LeaseObject>(LEASES).get('kube-controller-manager', { namespace: 'kube-system' });
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const holder = async (): Promise<string | undefined> => (await lease())?.spec?.holderIdentity;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-cm-'));
    const dataDir = join(root, 'data');
    apiserver = startK8ts(['apiserver', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    await apiserver.waitForLine(/^apiserver: serving on /, 60_000);
    admin = newHttpClient(restConfigFromKubeconfig(line.slice('export KUBECONFIG='.length).trim()));
    cmKubeconfig = join(dataDir, 'pki', 'controller-manager.kubeconfig');
  });

  after(async () => {
    for (const m of managers) await m.stop('SIGKILL').catch(() => undefined);
    admin?.close();
    await apiserver?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('lets exactly one of two managers hold the Lease, and hands it over at once when the leader gets SIGTERM', async () => {
    const a = await startManager();
    const b = await startManager();
    const ids = [a.identity, b.identity];
    await waitFor(async () => ids.includes((await holder()) ?? ''), { timeoutMs: 30_000, intervalMs: 100, description: 'one manager holds the Lease' });
    const first = (await lease())!;
    const [leader, follower] = first.spec!.holderIdentity === a.identity ? [a, b] : [b, a];
    assert.equal(first.spec!.leaseDurationSeconds, 4);

    // The follower reports itself as backup, the leader as master; the Lease is renewed by the leader only.
    const status = async (m: Manager): Promise<string | undefined> =>
      /^leader_election_master_status\{name="kube-controller-manager"\} (\d)$/m.exec((await httpGet(`${m.metricsUrl}/metrics`)).body)?.[1];
    await waitFor(async () => (await status(leader)) === '1' && (await status(follower)) === '0', { timeoutMs: 10_000, intervalMs: 100, description: 'master status' });
    await waitFor(async () => (await lease())!.spec!.renewTime !== first.spec!.renewTime, { timeoutMs: 10_000, intervalMs: 100, description: 'a renewal' });
    assert.equal(await holder(), leader.identity);
    assert.deepEqual(await httpGet(`${follower.metricsUrl}/healthz`), { status: 200, body: 'ok' });

    assert.equal(await leader.process.stop('SIGTERM'), 0);
    assert.match(leader.process.output(), /controller-manager: stopped/);
    // Released, so the follower need not wait out the 4 s lease duration (only its retry period).
    await waitFor(async () => (await holder()) === follower.identity, { timeoutMs: 15_000, intervalMs: 50, description: 'the follower takes over' });
    assert.equal((await lease())!.spec!.leaseTransitions, (first.spec!.leaseTransitions ?? 0) + 1, 'one transition: to the follower');
    assert.equal(await follower.process.stop('SIGTERM'), 0);
    assert.equal(await holder(), '', 'the last one released it too');
  });

  it('exits non-zero when its Lease is taken (the supervisor restarts it as a candidate)', async () => {
    const m = await startManager();
    await waitFor(async () => (await holder()) === m.identity, { timeoutMs: 30_000, intervalMs: 100, description: 'it leads' });
    const current = (await lease())!;
    await admin.resource<LeaseObject>(LEASES).update({ ...current, spec: { ...current.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 } });
    await m.process.waitForLine(/^controller-manager: lost the leader lease; exiting$/, 30_000);
    const code = await new Promise<number | string>((resolve) => {
      const { child } = m.process;
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode!);
      else child.once('exit', (c, s) => resolve(c ?? s ?? 'unknown'));
    });
    assert.equal(code, 1, 'it exits by itself, non-zero');
    assert.equal(await holder(), 'intruder', 'it does not release a Lease it lost');
    await admin.resource(LEASES).delete('kube-controller-manager', { namespace: 'kube-system' });
  });

  it('refuses an unknown --controllers name, a bad duration and a missing kubeconfig with clear messages', async () => {
    const unknown = await runK8ts(['controller-manager', '--kubeconfig', cmKubeconfig, '--secure-port', '0', '--controllers', '*,-nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.output, /error: invalid --controllers: "nope" is not in the list of known controllers; known controllers: /);

    const duration = await runK8ts(['controller-manager', '--kubeconfig', cmKubeconfig, '--node-monitor-grace-period', '40']);
    assert.notEqual(duration.code, 0);
    assert.match(duration.output, /invalid duration "40"/);

    const noKubeconfig = await runK8ts(['controller-manager', '--secure-port', '0']);
    assert.equal(noKubeconfig.code, 1);
    assert.match(noKubeconfig.output, /--kubeconfig is required/);
  });
});
