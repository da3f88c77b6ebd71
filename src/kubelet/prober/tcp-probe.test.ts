import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tcpProbe } from './tcp-probe.js';
import { freePort, startFullListener, startTcpServer, type RunningServer } from './testing/test-servers.js';

describe('tcpProbe (a real listener on 127.0.0.1)', () => {
  let server: RunningServer;
  let full: RunningServer;
  before(async () => {
    server = await startTcpServer();
    full = await startFullListener();
  });
  after(async () => {
    await Promise.all([server.close(), full.close()]);
  });

  it('succeeds when the connection opens', async () => {
    assert.deepEqual(await tcpProbe({ host: '127.0.0.1', port: server.port, timeoutMs: 5000 }), { verdict: 'success', output: '' });
  });

  it('fails with the dial error when nothing listens', async () => {
    const port = await freePort();
    assert.deepEqual(await tcpProbe({ host: '127.0.0.1', port, timeoutMs: 5000 }), {
      verdict: 'failure',
      output: `dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
  });

  it('fails with i/o timeout when the connection does not open in time', async () => {
    assert.deepEqual(await tcpProbe({ host: '127.0.0.1', port: full.port, timeoutMs: 300 }), {
      verdict: 'failure',
      output: `dial tcp 127.0.0.1:${full.port}: i/o timeout`,
    });
  });
});
