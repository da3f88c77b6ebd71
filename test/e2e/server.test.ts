import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../src/client/testing/wait-for.js';
import { startEtcd } from '../../src/storage/etcd/testing/etcd-process.js';
import { runK8ts, startK8ts, type K8tsProcess } from './testing/k8ts-process.js';
import { newKubectl, withStdin } from './testing/kubectl.js';

describe('k8ts server and k8ts store', () => {
  let dir: string;
  // The restarted sqlite server of the second test, which the third test goes on with (one server start fewer than a
  // cluster of its own); stopped here if a failure left it running.
  let restarted: K8tsProcess | undefined;
  let kubeconfig: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-server-'));
  });
  after(async () => {
    await restarted?.stop('SIGINT');
    await rm(dir, { recursive: true, force: true });
  });

  it('--help lists the subcommands', async () => {
    const { code, output } = await runK8ts(['--help']);
    assert.equal(code, 0);
    for (const sub of ['server', 'apiserver', 'store']) assert.match(output, new RegExp(`\\n\\s+${sub}\\s`));
  });

  it('runs a cluster on sqlite that kubectl reaches, stops cleanly, and keeps its state across restarts', async () => {
    const dataDir = join(dir, 'sqlite');
    const first = startK8ts(['server', '--data-dir', dataDir, '--secure-port', '0']);
    try {
      const line = await first.waitForLine(/^export KUBECONFIG=/, 60_000);
      kubeconfig = line.slice('export KUBECONFIG='.length);
      assert.equal(kubeconfig, join(dataDir, 'admin.kubeconfig'));
      const kubectl = newKubectl('1.33', kubeconfig);
      const namespaces = await kubectl.ok('get', 'namespaces', '-o', 'name');
      assert.deepEqual(namespaces.trim().split('\n'), ['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
      // The root-ca-cert-publisher runs by default under `k8ts server` (it passes --root-ca-file=<data-dir>/pki/ca.crt).
      const clusterCa = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
      for (const ns of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) {
        await waitFor(async () => (await kubectl('get', 'configmap', 'kube-root-ca.crt', '-n', ns, '-o', 'jsonpath={.data.ca\\.crt}')).stdout === clusterCa, {
          timeoutMs: 30_000,
          intervalMs: 200,
          description: `kube-root-ca.crt in ${ns} holds the cluster CA`,
        });
      }
      const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: survivor\ndata:\n  a: b\n';
      await withStdin(kubectl, kubeconfig, manifest).ok('create', '-f', '-');
    } finally {
      assert.equal(await first.stop('SIGTERM'), 0);
    }
    assert.match(first.output(), /stopped/);
    assert.ok(existsSync(join(dataDir, 'db', 'state.db')));
    assert.ok(existsSync(join(dataDir, 'logs', 'apiserver.log')));

    const status = await runK8ts(['store', 'status', '--data-dir', dataDir]);
    assert.equal(status.code, 0, status.output);
    assert.match(status.output, /configmaps: 6\b/, 'survivor, the kube-root-ca.crt of the 4 namespaces and kube-public/cluster-info');
    assert.match(status.output, /namespaces: 4/);

    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    restarted = startK8ts(['server', '--data-dir', dataDir, '--secure-port', '0']);
    await restarted.waitForLine(/^export KUBECONFIG=/, 60_000);
    assert.equal(readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'), ca, 'the cluster CA is kept');
    const kubectl = newKubectl('1.33', kubeconfig);
    assert.equal((await kubectl.ok('get', 'configmap', 'survivor', '-o', 'jsonpath={.data.a}')).trim(), 'b');
  });

  it('restarts a component that crashes, and stops cleanly on SIGINT', async () => {
    const server = restarted;
    assert.ok(server !== undefined, 'the restarted sqlite server of the test before');
    try {
      const first = Number(/^apiserver: started \(pid (\d+)\)$/m.exec(server.output())![1]);
      process.kill(first, 'SIGKILL');
      await server.waitForLine(/^apiserver: exited \(SIGKILL\); restarting in \d+ ms$/, 30_000);
      const again = await server.waitForLine(new RegExp(`^apiserver: started \\(pid (?!${first}\\))\\d+\\)$`), 30_000);
      // A restarted component runs with the same V8 flags as the first (supervisor.ts, DEFAULT_COMPONENT_V8_FLAGS),
      // and the API server with its own as well (apiserver-v8-flags.ts).
      const argv = readFileSync(`/proc/${/pid (\d+)/.exec(again)![1]}/cmdline`, 'utf8').split('\0');
      assert.ok(argv.includes('--interrupt-budget=1081344'), argv.join(' '));
      assert.ok(argv.includes('--max-semi-space-size=32'), argv.join(' '));
      const kubectl = newKubectl('1.33', kubeconfig);
      // The restarted API server answers once it has opened the store again (as long as a first start may take).
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = await kubectl('get', 'namespaces', '-o', 'name');
        if (r.code === 0) {
          assert.match(r.stdout, /namespace\/kube-system/);
          break;
        }
        if (Date.now() > deadline) throw new Error(`the restarted API server did not answer: ${r.stderr}`);
      }
      assert.equal(await kubectl.ok('get', 'configmap', 'survivor', '-o', 'jsonpath={.data.a}'), 'b', 'the store is the same after the restart');
    } finally {
      restarted = undefined;
      assert.equal(await server.stop('SIGINT'), 0);
    }
  });

  it('store get of a missing key fails with a clear error', async () => {
    const { code, output } = await runK8ts(['store', 'get', '/registry/pods/none/x', '--data-dir', join(dir, 'sqlite')]);
    assert.equal(code, 1);
    assert.match(output, /error: key "\/registry\/pods\/none\/x" not found/);
  });

  it('rejects a bad flag value with a clear error and no stack trace', async () => {
    const { code, output } = await runK8ts(['server', '--data-dir', join(dir, 'bad'), '--secure-port', 'abc']);
    assert.notEqual(code, 0);
    assert.match(output, /invalid port "abc"/);
    assert.doesNotMatch(output, /\n\s+at /);
    const unknown = await runK8ts(['server', '--bogus']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.output, /unknown option '--bogus'/);
    const duration = await runK8ts(['store', 'status', '--dial-timeout', 'soon']);
    assert.notEqual(duration.code, 0);
    assert.match(duration.output, /invalid duration "soon"/);
  });

  it('fails with a clear error when its port is taken', async () => {
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '0.0.0.0', () => resolve()));
    const port = (holder.address() as { port: number }).port;
    try {
      const { code, output } = await runK8ts(['server', '--data-dir', join(dir, 'taken'), '--secure-port', String(port)]);
      assert.equal(code, 1);
      assert.match(output, new RegExp(`error: port ${port} is already in use`));
    } finally {
      holder.close();
    }
  });

  it('fails with a clear error when etcd cannot be reached', async () => {
    const { code, output } = await runK8ts(['store', 'status', '--etcd-servers', 'http://127.0.0.1:1', '--dial-timeout', '500ms'], 60_000);
    assert.equal(code, 1);
    assert.match(output, /^error: .*127\.0\.0\.1:1/m);
    assert.doesNotMatch(output, /\n\s+at /);
  });

  describe('on etcd', () => {
    let etcd: Awaited<ReturnType<typeof startEtcd>>;
    before(async () => {
      etcd = await startEtcd();
    });
    after(async () => {
      await etcd.stop();
    });

    it('puts the same cluster on etcd with --datastore etcd://HOST:PORT (what --etcd-servers http://HOST:PORT reads back)', async () => {
      const dataDir = join(dir, 'etcd');
      const server = startK8ts(['server', '--data-dir', dataDir, '--secure-port', '0', '--datastore', etcd.endpoint.replace(/^http:\/\//, 'etcd://')]);
      try {
        const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
        const kubectl = newKubectl('1.33', line.slice('export KUBECONFIG='.length));
        assert.match(await kubectl.ok('get', 'namespaces'), /kube-system\s+Active/);
        assert.ok(server.output().includes(`store: etcd at ${etcd.endpoint}\n`), server.output());
      } finally {
        assert.equal(await server.stop(), 0);
      }
      assert.equal(existsSync(join(dataDir, 'db', 'state.db')), false, 'no sqlite file when on etcd');
      const status = await runK8ts(['store', 'status', '--etcd-servers', etcd.endpoint]);
      assert.match(status.output, /namespaces: 4/);
    });
  });
});
