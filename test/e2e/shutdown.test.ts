/**
 * Graceful shutdown: on SIGTERM the API server stops accepting, ends open
 * watches cleanly (the stream ends, it is not reset) and exits 0.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from './testing/api-client.js';
import { startK8ts, type K8tsProcess } from './testing/k8ts-process.js';

describe('API server shutdown', () => {
  let dir: string;
  let server: K8tsProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-shutdown-'));
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('ends watches cleanly and exits 0 on SIGTERM', async () => {
    server = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
    const line = await server.waitForLine(/^apiserver: serving on /, 60_000);
    const api = new ApiClient(line.replace(/^apiserver: serving on /, '').trim(), join(dir, 'pki'));
    try {
      const watch = await api.watch('/api/v1/namespaces?watch=true');
      assert.equal(watch.status, 200);
      // The initial state arrives as ADDED events: the watch is established.
      const deadline = Date.now() + 10_000;
      while (watch.lines.length < 4) {
        if (Date.now() > deadline) throw new Error(`only ${watch.lines.length} initial events`);
        await new Promise((r) => setImmediate(r));
      }
      const exit = server.stop('SIGTERM');
      assert.equal(await watch.ended, 'end', 'the watch stream ends cleanly');
      assert.equal(await exit, 0);
      assert.match(server.output(), /apiserver: stopped/);
      // Every admission watch listens to one stop signal: no warning of a listener leak at start.
      assert.doesNotMatch(server.output(), /MaxListenersExceededWarning/);
    } finally {
      api.close();
    }
  });
});
