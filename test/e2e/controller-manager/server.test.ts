/** `k8ts server` runs the controller manager as a supervised process with its own identity. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LeaseObject } from '../../../src/client/leader-election/leader-elector.js';
import { newHttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { LEASES } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { startK8ts } from '../testing/k8ts-process.js';

describe('k8ts server starts the controller manager', { timeout: 180_000 }, () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-cm-server-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('supervises it with its kubeconfig and flags, restarts it after a crash, and stops it', async () => {
    const dataDir = join(root, 'data');
    const server = startK8ts([
      'server',
      '--disable-agent',
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--node-monitor-grace-period',
      '4s',
      '--controller-manager-arg=--leader-elect-lease-duration=4s',
      '--controller-manager-arg=--leader-elect-renew-deadline=3s',
      '--controller-manager-arg=--leader-elect-retry-period=500ms',
    ]);
    const client = { close: () => {} } as { close(): void };
    try {
      const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
      const started = await server.waitForLine(/^controller-manager: started \(pid \d+\)$/, 30_000);
      const admin = newHttpClient(restConfigFromKubeconfig(line.slice('export KUBECONFIG='.length).trim()));
      client.close = () => admin.close();
      const leases = admin.resource<LeaseObject>(LEASES);
      const holder = async (): Promise<string> => {
        try {
          return (await leases.get('kube-controller-manager', { namespace: 'kube-system' })).spec?.holderIdentity ?? '';
        } catch {
          return '';
        }
      };
      await waitFor(async () => (await holder()) !== '', { timeoutMs: 60_000, intervalMs: 200, description: 'the controller manager leads' });
      const firstHolder = await holder();
      assert.equal((await leases.get('kube-controller-manager', { namespace: 'kube-system' })).spec?.leaseDurationSeconds, 4, 'pass-through flags reach it');

      const log = join(dataDir, 'logs', 'controller-manager.log');
      assert.ok(existsSync(log));
      const args = readFileSync(`/proc/${/pid (\d+)/.exec(started)![1]}/cmdline`, 'utf8').split('\0');
      assert.equal(args[args.indexOf('--kubeconfig') + 1], join(dataDir, 'pki', 'controller-manager.kubeconfig'));
      assert.equal(args[args.indexOf('--cluster-cidr') + 1], '127.244.0.0/16');
      assert.equal(args[args.indexOf('--node-monitor-grace-period') + 1], '4s');

      process.kill(Number(/pid (\d+)/.exec(started)![1]), 'SIGKILL');
      await server.waitForLine(/^controller-manager: exited \(SIGKILL\); restarting in \d+ ms$/, 30_000);
      // The new process is another candidate: it takes the Lease once the killed one's lease duration has passed unrenewed.
      await waitFor(async () => ![firstHolder, ''].includes(await holder()), { timeoutMs: 60_000, intervalMs: 200, description: 'the restarted manager leads' });
    } finally {
      client.close();
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    assert.match(readFileSync(join(dataDir, 'logs', 'controller-manager.log'), 'utf8'), /controller-manager: stopped/);
  });
});
