/**
 * kubectl logs, exec and port-forward end to end: real kubectl (1.33 over
 * WebSockets, 1.27 over SPDY/3.1) → the real API server → this process's
 * kubelet server → the real process runtime.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { newKubectl, type Kubectl, type KubectlVersion } from '../testing/kubectl.js';
import { runPod, startStreamingCluster, waitFor, type StreamingCluster } from './streaming-cluster.js';

const SERVER_SCRIPT = "require('net').createServer((s) => s.end('hello from pod\\n')).listen(8080, process.env.POD_IP, () => console.log('listening'))";

describe('kubectl logs, exec and port-forward through the kubelet', { timeout: 180_000 }, () => {
  let cluster: StreamingCluster;
  const kubectl = (version: KubectlVersion, stdin?: string): Kubectl => newKubectl(version, cluster.kubeconfig, stdin);

  before(async () => {
    cluster = await startStreamingCluster('streaming', '127.244.201.0/24');
    await runPod(cluster, 'web', [
      { name: 'main', previous: [['sh', '-c', 'echo first-attempt']], command: ['sh', '-c', 'echo line1; echo line2; echo line3; exec sleep 3600'] },
      { name: 'server', command: [process.execPath, '-e', SERVER_SCRIPT] },
      { name: 'ticker', command: ['sh', '-c', 'for i in 1 2 3; do echo tick $i; sleep 0.2; done'] },
    ]);
    await waitFor(async () => (await kubectl('1.33')('logs', 'web', '-c', 'main')).stdout.includes('line3'), 'main to log');
    // port-forward needs the server listening: it says so once it is.
    await waitFor(async () => (await kubectl('1.33')('logs', 'web', '-c', 'server')).stdout.includes('listening'), 'server to listen');
  });
  after(async () => {
    await cluster?.stop();
  });

  for (const version of ['1.33', '1.27'] as const) {
    it(`kubectl ${version} logs, with --tail, --timestamps and --previous`, async () => {
      const k = kubectl(version);
      assert.equal(await k.ok('logs', 'web', '-c', 'main'), 'line1\nline2\nline3\n');
      assert.equal(await k.ok('logs', 'web', '-c', 'main', '--tail=1'), 'line3\n');
      const stamped = (await k.ok('logs', 'web', '-c', 'main', '--timestamps')).trimEnd().split('\n');
      assert.equal(stamped.length, 3);
      for (const line of stamped) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z line\d$/);
      assert.equal(await k.ok('logs', 'web', '-c', 'main', '--previous'), 'first-attempt\n');
      assert.equal(await k.ok('logs', 'web', '-c', 'main', '--limit-bytes=8'), 'line1\nli');
    });

    it(`kubectl ${version} logs -f follows the container until it exits`, async () => {
      assert.equal(await kubectl(version).ok('logs', '-f', 'web', '-c', 'ticker'), 'tick 1\ntick 2\ntick 3\n');
    });

    it(`kubectl ${version} exec returns the command's output and exit code`, async () => {
      const r = await kubectl(version)('exec', 'web', '-c', 'main', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3');
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, 'out\n');
      assert.match(r.stderr, /err\n/);
      assert.match(r.stderr, /command terminated with exit code 3/);
      const ok = await kubectl(version)('exec', 'web', '-c', 'main', '--', 'sh', '-c', 'echo fine');
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout, 'fine\n');
    });

    it(`kubectl ${version} exec -i passes stdin through`, async () => {
      const r = await kubectl(version, 'hello\nworld\n')('exec', '-i', 'web', '-c', 'main', '--', 'cat');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'hello\nworld\n');
    });

    it(`kubectl ${version} port-forward reaches the pod's port`, async () => {
      const k = kubectl(version);
      const child = spawn(k.binary, ['port-forward', 'pod/web', ':8080'], { env: k.env, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        let output = '';
        child.stdout.on('data', (c: Buffer) => (output += c.toString()));
        child.stderr.on('data', (c: Buffer) => (output += c.toString()));
        await waitFor(async () => /Forwarding from 127\.0\.0\.1:(\d+)/.test(output), () => `port-forward to start (${output})`);
        const localPort = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(output)![1]);
        for (let i = 0; i < 2; i++) {
          const answer = await new Promise<string>((resolve, reject) => {
            const socket = connect(localPort, '127.0.0.1');
            let text = '';
            socket.on('data', (c: Buffer) => (text += c.toString()));
            socket.on('end', () => resolve(text));
            socket.on('error', reject);
          });
          assert.equal(answer, 'hello from pod\n', output);
        }
      } finally {
        child.kill('SIGTERM');
      }
    });
  }

  it('names the containers when a pod has several and none is given', async () => {
    const r = await kubectl('1.33')('get', '--raw', '/api/v1/namespaces/default/pods/web/log');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /a container name must be specified for pod web, choose one of: \[main server ticker\]/);
    const bad = await kubectl('1.33')('logs', 'web', '-c', 'nope');
    assert.match(bad.stderr, /container nope is not valid for pod web/);
  });

  it("says why a container not started yet waits, from the pod's status", async () => {
    await runPod(cluster, 'initializing', [
      { name: 'setup', command: ['sleep', '3600'] },
      { name: 'main', command: ['true'], waitingReason: 'PodInitializing' },
    ]);
    const r = await kubectl('1.33')('logs', 'initializing', '-c', 'main');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /container "main" in pod "initializing" is waiting to start: PodInitializing/);
  });

  it('refuses to exec into a pod that has no node', async () => {
    await runPod(cluster, 'pending', [{ name: 'main', command: ['true'] }], '');
    const r = await kubectl('1.33')('exec', 'pending', '--', 'true');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /pod pending does not have a host assigned/);
  });
});
