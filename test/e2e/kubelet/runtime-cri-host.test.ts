/**
 * A real, private containerd with no pod network (and no network namespace of
 * its own, so its streaming server on 127.0.0.1 is reachable from here):
 * host-network pods only.
 *
 * - `k8ts image import` (the real command) into it, starting with no images:
 *   afterwards the CRI lists busybox under both tags and the pause image under
 *   containerd's sandbox_image name, and a pod runs on them.
 * - exec, attach and port-forward through containerd's streaming server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ContainerConfig, PodSandboxConfig } from '../../../src/kubelet/runtime/interface.js';
import { newCriRuntime } from '../../../src/kubelet/runtime/cri/cri-runtime.js';
import { eventually } from '../../../src/kubelet/runtime/testing/conformance.js';
import { containerdUnavailableReason, startPrivateContainerd, type PrivateContainerd } from '../testing/containerd.js';
import { runK8ts } from '../testing/k8ts-process.js';

const skip = await containerdUnavailableReason();

describe('k8ts image import into containerd', skip !== undefined ? { skip } : {}, () => {
  let containerd: PrivateContainerd;
  let dataDir: string;
  before(async () => {
    containerd = await startPrivateContainerd({ images: [], podNetwork: false });
    dataDir = mkdtempSync(join(tmpdir(), 'k8ts-image-import-'));
  });
  after(async () => {
    try {
      await containerd?.stop();
    } finally {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('imports busybox and pause under their usual names, and a host-network pod runs on them', async () => {
    const cri = newCriRuntime({ endpoint: containerd.endpoint, timeoutMs: 30_000 });
    try {
      assert.equal(await cri.images.imageStatus('busybox:1.35'), undefined);
      const { code, output } = await runK8ts(['image', 'import', 'busybox', 'pause', '--data-dir', dataDir, '--containerd-address', containerd.address], 120_000);
      assert.equal(code, 0, output);
      assert.match(output, /^docker\.io\/library\/busybox:1\.35$/m);
      const busybox = await cri.images.imageStatus('busybox:1.35');
      assert.deepEqual([...(busybox?.repoTags ?? [])].sort(), ['docker.io/library/busybox:1.35', 'docker.io/library/busybox:latest']);
      assert.match(busybox?.id ?? '', /^sha256:[0-9a-f]{64}$/);
      const pause = await cri.images.imageStatus('registry.k8s.io/pause:3.6');
      assert.equal(pause?.uid, 65535);
      const network = (await cri.runtime.status()).conditions.find((c) => c.type === 'NetworkReady');
      await cri.runtime.updateRuntimeConfig({ podCIDR: '10.244.9.0/24' });
      assert.equal((await cri.runtime.status()).conditions.find((c) => c.type === 'NetworkReady')?.status, false, 'no CNI template: no pod network');
      assert.equal(network?.status, false);

      const logDirectory = join(dataDir, 'pods', 'default_hello_u1');
      const sandbox = {
        metadata: { name: 'hello', uid: 'u1', namespace: 'default', attempt: 0 },
        hostname: 'hello',
        logDirectory,
        portMappings: [],
        labels: {},
        annotations: {},
        linux: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } },
      } as const;
      const sandboxId = await cri.runtime.runPodSandbox(sandbox);
      const id = await cri.runtime.createContainer(
        sandboxId,
        {
          metadata: { name: 'hello', attempt: 0 },
          image: 'busybox',
          command: [],
          args: ['sh', '-c', 'echo "hello from $(id -u) in $(pwd)"; ls /bin/httpd'],
          envs: [],
          mounts: [],
          labels: {},
          annotations: {},
          logPath: 'hello/0.log',
          stdin: false,
          stdinOnce: false,
          tty: false,
        },
        sandbox,
      );
      await cri.runtime.startContainer(id);
      const done = await eventually('the container to exit', async () => {
        const s = await cri.runtime.containerStatus(id);
        return s.state === 'CONTAINER_EXITED' ? s : undefined;
      });
      assert.equal(done.exitCode, 0, readFileSync(done.logPath, 'utf8'));
      assert.equal(done.imageRef, busybox?.id);
      assert.match(readFileSync(done.logPath, 'utf8'), / stdout F hello from 0 in \/\n.* stdout F \/bin\/httpd\n$/);
    } finally {
      await cri.close();
    }
  });

  const readAll = async (stream: NodeJS.ReadableStream | undefined): Promise<string> => {
    if (!stream) return '';
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  };
  let n = 0;
  const hostSandbox = (): PodSandboxConfig => ({
    metadata: { name: `s${++n}`, uid: `su${n}`, namespace: 'default', attempt: 0 },
    hostname: '',
    logDirectory: join(dataDir, 'pods', `s${n}`),
    portMappings: [],
    labels: {},
    annotations: {},
    linux: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } },
  });
  const busybox = (script: string, extra: Partial<ContainerConfig> = {}): ContainerConfig => ({
    metadata: { name: 'main', attempt: 0 },
    image: 'docker.io/library/busybox:1.35',
    command: ['/bin/sh', '-c', script],
    args: [],
    envs: [],
    mounts: [],
    labels: {},
    annotations: {},
    logPath: 'main/0.log',
    stdin: false,
    stdinOnce: false,
    tty: false,
    ...extra,
  });

  it('streams exec (stdin, stdout, stderr, exit code, tty), attach and port-forward through containerd', async () => {
    const cri = newCriRuntime({ endpoint: containerd.endpoint, timeoutMs: 30_000 });
    const rt = cri.runtime;
    try {
      // A free loopback port for the container's server (host network).
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const p = (probe.address() as { port: number }).port;
          probe.close(() => resolve(p));
        });
      });
      const sc = hostSandbox();
      const sandboxId = await rt.runPodSandbox(sc);
      const server = await rt.createContainer(
        sandboxId,
        busybox(`mkdir -p /tmp/www && echo hello-from-httpd > /tmp/www/index.html && exec httpd -f -p 127.0.0.1:${port} -h /tmp/www`),
        sc,
      );
      await rt.startContainer(server);
      await eventually('httpd to listen', () =>
        new Promise<true | undefined>((resolve) => {
          const probe = connect({ host: '127.0.0.1', port }, () => {
            probe.destroy();
            resolve(true);
          });
          probe.on('error', () => resolve(undefined));
        }),
      );

      const s = await rt.exec({ containerId: server, cmd: ['/bin/sh', '-c', 'cat; echo bye >&2; exit 5'], stdin: true, stdout: true, stderr: true, tty: false });
      const out = readAll(s.stdout);
      const err = readAll(s.stderr);
      s.stdin?.end('ping\n');
      assert.equal(await s.exit, 5);
      assert.equal(await out, 'ping\n');
      assert.equal(await err, 'bye\n');

      const big = await rt.exec({ containerId: server, cmd: ['/bin/sh', '-c', 'head -c 300000 /dev/zero | tr "\\0" x'], stdin: false, stdout: true, stderr: true, tty: false });
      const bigOut = readAll(big.stdout);
      void readAll(big.stderr);
      assert.equal(await big.exit, 0);
      assert.equal((await bigOut).length, 300000);

      const tty = await rt.exec({ containerId: server, cmd: ['/bin/sh', '-c', 'echo a; echo b >&2'], stdin: false, stdout: true, stderr: true, tty: true });
      assert.equal(tty.stderr, undefined);
      const merged = await readAll(tty.stdout);
      assert.equal(await tty.exit, 0);
      assert.deepEqual(merged.split(/\r?\n/).filter((l) => l !== '').sort(), ['a', 'b']);

      const forwarded = await rt.portForward(sandboxId, port);
      forwarded.end('GET /index.html HTTP/1.0\r\n\r\n');
      assert.match(await readAll(forwarded), /^HTTP\/1\.[01] 200 OK\r\n[\s\S]*\r\n\r\nhello-from-httpd\n$/);
      const refused = await rt.portForward(sandboxId, 1);
      await assert.rejects(readAll(refused), /port-forward to port 1: .*connection refused/);

      const waiter = await rt.createContainer(sandboxId, busybox('read line; echo "got $line"; exit 3', { metadata: { name: 'waiter', attempt: 0 }, logPath: 'waiter/0.log', stdin: true, stdinOnce: true }), sc);
      await rt.startContainer(waiter);
      const attached = await rt.attach({ containerId: waiter, stdin: true, stdout: true, stderr: true, tty: false });
      const said = readAll(attached.stdout);
      void readAll(attached.stderr);
      attached.stdin?.end('go\n');
      assert.equal(await attached.exit, 3);
      assert.equal(await said, 'got go\n');
      await rt.stopContainer(server, 0);
    } finally {
      await cri.close();
    }
  });
});
