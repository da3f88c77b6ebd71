import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Probe } from 'kubernetes-types/core/v1.js';
import { RuntimeError } from '../runtime/interface.js';
import type { Pod } from '../types.js';
import { newProber, type ProbeTarget } from './prober.js';
import { exitWith, newFakeRuntime } from './testing/fake-runtime.js';
import { newRecordingEvents } from './testing/recording-events.js';
import { startHttpServer, type RunningServer } from './testing/test-servers.js';

const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'uid-1' }, spec: { containers: [{ name: 'app' }] } };

describe('prober', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttpServer((req, res) => {
      if (req.url === '/redirect') {
        res.statusCode = 302;
        res.setHeader('Location', 'http://127.0.0.2:1/');
        res.end('moved');
        return;
      }
      res.statusCode = req.url === '/ok' ? 200 : 500;
      res.end();
    });
  });
  after(() => server.close());

  const setup = () => {
    const runtime = newFakeRuntime();
    runtime.run('c1');
    const events = newRecordingEvents();
    const target = (container: ProbeTarget['container'] = { name: 'app', env: [{ name: 'WORD', value: 'hi' }] }): ProbeTarget => ({
      pod,
      container,
      containerId: 'c1',
      podIP: '127.0.0.1',
    });
    return { runtime, events, prober: newProber({ runtime, events }), target };
  };

  it('records Unhealthy with the output on failure, about the container (spec.containers{app}), nothing on success', async () => {
    const { prober, events, target } = setup();
    const http = (path: string): Probe => ({ httpGet: { path, port: server.port } });
    assert.equal(await prober.probe('liveness', http('/ok'), target(), 1000), 'success');
    assert.deepEqual(events.events, []);
    assert.equal(await prober.probe('liveness', http('/bad'), target(), 1000), 'failure');
    assert.equal(await prober.probe('readiness', http('/bad'), target(), 1000), 'failure');
    assert.deepEqual(events.events, [
      { pod: 'web', type: 'Warning', reason: 'Unhealthy', message: 'Liveness probe failed: HTTP probe failed with statuscode: 500', fieldPath: 'spec.containers{app}' },
      { pod: 'web', type: 'Warning', reason: 'Unhealthy', message: 'Readiness probe failed: HTTP probe failed with statuscode: 500', fieldPath: 'spec.containers{app}' },
    ]);
  });

  it('records ProbeWarning for a redirect it did not follow, and counts it as success', async () => {
    const { prober, events, target } = setup();
    assert.equal(await prober.probe('startup', { httpGet: { path: '/redirect', port: server.port } }, target(), 1000), 'success');
    assert.deepEqual(events.events, [
      { pod: 'web', type: 'Warning', reason: 'ProbeWarning', message: 'Startup probe warning: Probe terminated redirects, Response body: moved', fieldPath: 'spec.containers{app}' },
    ]);
  });

  it('expands $(VAR) in exec commands and uses the exit code', async () => {
    const { prober, runtime, events, target } = setup();
    runtime.execAnswer = ({ cmd }) => exitWith(cmd.join(' ') === 'echo hi' ? 0 : 1, '', 'wrong');
    assert.equal(await prober.probe('readiness', { exec: { command: ['echo', '$(WORD)'] } }, target(), 1000), 'success');
    assert.equal(await prober.probe('readiness', { exec: { command: ['false'] } }, target(), 1000), 'failure');
    assert.deepEqual(events.events.map((e) => e.message), ['Readiness probe failed: wrong']);
  });

  it('retries a probe that cannot run 3 times, then answers unknown with an "errored" event', async () => {
    const { prober, runtime, events, target } = setup();
    let calls = 0;
    runtime.execAnswer = () => {
      calls++;
      return Promise.reject(new RuntimeError('Unknown', 'exec failed: no such file'));
    };
    assert.equal(await prober.probe('liveness', { exec: { command: ['x'] } }, target(), 1000), 'unknown');
    assert.equal(calls, 3);
    assert.deepEqual(events.events.map((e) => [e.reason, e.message]), [['Unhealthy', 'Liveness probe errored and resulted in unknown state: exec failed: no such file']]);
  });

  it('answers unknown for a port name the container does not have, and for a probe with no handler', async () => {
    const { prober, events, target } = setup();
    assert.equal(await prober.probe('readiness', { tcpSocket: { port: 'http' } }, target(), 1000), 'unknown');
    assert.equal(await prober.probe('readiness', {}, target(), 1000), 'unknown');
    assert.deepEqual(events.events.map((e) => e.message), [
      'Readiness probe errored and resulted in unknown state: strconv.Atoi: parsing "http": invalid syntax',
      'Readiness probe errored and resulted in unknown state: missing probe handler for web_default(uid-1):app',
    ]);
  });

  it('sends a kept httpGet request to the new pod IP and port once the target changes, and makes each event about its own container', async () => {
    const other = await startHttpServer((req, res) => {
      res.statusCode = req.url === '/ok' ? 200 : 500;
      res.end();
    }, '127.0.0.2');
    try {
      const { prober, events, target } = setup();
      const probe: Probe = { httpGet: { path: '/ok', port: 'web' } };
      const first = { name: 'app', ports: [{ name: 'web', containerPort: server.port }] };
      assert.equal(await prober.probe('readiness', probe, target(first), 1000), 'success');
      // The same action for another address (a new sandbox) and another container object (its port changed).
      const moved = { name: 'app', ports: [{ name: 'web', containerPort: other.port }] };
      assert.equal(await prober.probe('readiness', probe, { ...target(moved), podIP: '127.0.0.2' }, 1000), 'success');
      // The old address and port again: its server answers 500 for another path, so a stale request would pass.
      const bad: Probe = { httpGet: { path: '/bad', port: 'web' } };
      assert.equal(await prober.probe('readiness', bad, { ...target(moved), podIP: '127.0.0.2' }, 1000), 'failure');
      assert.equal(await prober.probe('liveness', probe, { ...target(first), podIP: '127.0.0.2' }, 1000), 'failure', 'the first port on the second address: nothing listens there');
      assert.deepEqual(events.events.map((e) => e.fieldPath), ['spec.containers{app}', 'spec.containers{app}']);
    } finally {
      await other.close();
    }
  });

  it('resolves named ports for tcpSocket and httpGet', async () => {
    const { prober, target } = setup();
    const container = { name: 'app', ports: [{ name: 'web', containerPort: server.port }] };
    assert.equal(await prober.probe('readiness', { tcpSocket: { port: 'web' } }, target(container), 1000), 'success');
    assert.equal(await prober.probe('readiness', { httpGet: { port: 'web', path: '/ok' } }, target(container), 1000), 'success');
  });
});
