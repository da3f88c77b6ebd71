import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RuntimeError, type ContainerConfig, type PodSandboxConfig, type RuntimeService } from '../interface.js';
import { eventually, runRuntimeConformance } from '../testing/conformance.js';
import { compareDecimal, newProcessRuntime, TERMINATION_MESSAGE_PATH_ENV, withTerminationMessageEnv, type ProcessRuntimeOptions } from './process-runtime.js';
import { isAlive } from './pid-alive.js';
import { FRAME_EXIT, FrameDecoder } from './shim-protocol.js';
import { attachSocketPath, containersDir, readJsonIfExists, shimStateFile, writeJsonAtomic, type ContainerRecord, type ShimState } from './state-files.js';

/** The shim's state.json of a container (its pid, and shimPid), read straight from disk. */
function shimStateOf(stateDir: string, id: string): ShimState {
  const state = readJsonIfExists<ShimState>(shimStateFile(join(containersDir(stateDir), id)));
  assert.ok(state, `no state.json for ${id}`);
  return state;
}

/** Kills every shim and container process recorded under stateDir (the `after` of each test here). */
function killEverything(stateDir: string): void {
  let ids: string[] = [];
  try {
    ids = readdirSync(containersDir(stateDir));
  } catch {
    return;
  }
  for (const id of ids) {
    const state = readJsonIfExists<ShimState>(shimStateFile(join(containersDir(stateDir), id)));
    if (!state) continue;
    for (const target of [-state.pid, state.shimPid]) {
      if (target === 0) continue;
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function tempRoot(): { root: string; options: ProcessRuntimeOptions } {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-process-runtime-'));
  return { root, options: { stateDir: join(root, 'state'), imagesDir: join(root, 'images'), podCIDR: '127.244.77.0/24', pollIntervalMs: 5 } };
}

runRuntimeConformance('process', async () => {
  const { root, options } = tempRoot();
  return {
    runtime: newProcessRuntime(options),
    reopen: async () => newProcessRuntime(options),
    image: 'docker.io/library/not-built:1', // runs on the host's PATH (/bin/sh)
    absentImage: 'example.invalid/absent:1',
    logRoot: join(root, 'pods'),
    dispose: async () => {
      killEverything(options.stateDir);
      rmSync(root, { recursive: true, force: true });
    },
  };
});

describe('process runtime', () => {
  const roots: { root: string; options: ProcessRuntimeOptions }[] = [];
  const fresh = (extra: Partial<ProcessRuntimeOptions> = {}) => {
    const t = tempRoot();
    roots.push(t);
    const options = { ...t.options, ...extra };
    const { runtime, images } = newProcessRuntime(options);
    return { root: t.root, options, rt: runtime, images };
  };
  after(() => {
    for (const { root, options } of roots) {
      killEverything(options.stateDir);
      rmSync(root, { recursive: true, force: true });
    }
  });
  let n = 0;
  const sandbox = (root: string, hostNetwork = false): PodSandboxConfig => ({
    metadata: { name: `p${++n}`, uid: `u${n}`, namespace: 'ns', attempt: 0 },
    hostname: `p${n}`,
    logDirectory: join(root, 'pods', `p${n}`),
    portMappings: [],
    labels: {},
    annotations: {},
    ...(hostNetwork ? { linux: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } } : {}),
  });
  const container = (command: string[], args: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig => ({
    metadata: { name: 'c', attempt: 0 },
    image: 'busybox:1.35',
    command,
    args,
    envs: [],
    mounts: [],
    labels: {},
    annotations: {},
    logPath: 'c/0.log',
    stdin: false,
    stdinOnce: false,
    tty: false,
    ...extra,
  });

  it('allocates pod IPs from .2 upward, reuses removed ones and keeps them across restarts', async () => {
    const { root, options, rt } = fresh({ podCIDR: '127.244.78.0/30' });
    const a = await rt.runPodSandbox(sandbox(root));
    assert.equal((await rt.podSandboxStatus(a)).network?.ip, '127.244.78.2');
    await assert.rejects(rt.runPodSandbox(sandbox(root)), (e: unknown) => e instanceof RuntimeError && e.code === 'Unavailable');
    const again = newProcessRuntime(options).runtime;
    assert.equal((await again.podSandboxStatus(a)).network?.ip, '127.244.78.2');
    await again.removePodSandbox(a);
    const b = await rt.runPodSandbox(sandbox(root));
    assert.equal((await rt.podSandboxStatus(b)).network?.ip, '127.244.78.2');
  });

  it('without a pod CIDR runs only host-network sandboxes and says the network is not ready', async () => {
    const { root, rt } = fresh({ podCIDR: '' });
    await assert.rejects(rt.runPodSandbox(sandbox(root)), (e: unknown) => e instanceof RuntimeError && e.code === 'Unavailable');
    const host = await rt.runPodSandbox(sandbox(root, true));
    assert.equal((await rt.podSandboxStatus(host)).network?.ip, '');
    const net = (await rt.status()).conditions.find((c) => c.type === 'NetworkReady');
    assert.equal(net?.status, false);
    assert.equal(net?.reason, 'NetworkPluginNotReady');
  });

  it('takes the pod CIDR later through updateRuntimeConfig, and rejects a malformed one', async () => {
    const { root, rt } = fresh({ podCIDR: '' });
    await assert.rejects(rt.updateRuntimeConfig({ podCIDR: 'not-a-cidr' }), (e: unknown) => e instanceof RuntimeError && e.code === 'InvalidArgument');
    await rt.updateRuntimeConfig({ podCIDR: '127.244.79.0/24' });
    assert.equal((await rt.status()).conditions.find((c) => c.type === 'NetworkReady')?.status, true);
    const id = await rt.runPodSandbox(sandbox(root));
    assert.equal((await rt.podSandboxStatus(id)).network?.ip, '127.244.79.2');
    await rt.removePodSandbox(id);
  });

  it('puts the image directory first on PATH and applies its entrypoint/cmd defaults', async () => {
    const { root, options, rt, images } = fresh();
    const dir = join(options.imagesDir, 'docker.io', 'library', 'busybox', '1.35');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(join(dir, 'bin', 'greet'), '#!/bin/sh\necho "greetings from the image: $*"\n', { mode: 0o755 });
    writeFileSync(join(dir, 'image.json'), JSON.stringify({ entrypoint: ['greet'], cmd: ['default', 'args'], env: ['FROM_IMAGE=yes'] }));
    symlinkSync('1.35', join(options.imagesDir, 'docker.io', 'library', 'busybox', 'latest'));
    const status = await images.imageStatus('busybox:1.35');
    assert.ok(status);
    assert.deepEqual([...status.repoTags].sort(), ['docker.io/library/busybox:1.35', 'docker.io/library/busybox:latest']);
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(sb, container([], []), sc);
    await rt.startContainer(id);
    const done = await eventually('exit', async () => {
      const s = await rt.containerStatus(id);
      return s.state === 'CONTAINER_EXITED' ? s : undefined;
    });
    assert.equal(done.imageRef, status.id);
    assert.match(await readFile(done.logPath, 'utf8'), / stdout F greetings from the image: default args\n$/);
    const withArgs = await rt.createContainer(sb, container([], ['mine'], { metadata: { name: 'c', attempt: 1 } }), sc);
    await rt.startContainer(withArgs);
    const s2 = await eventually('exit', async () => {
      const s = await rt.containerStatus(withArgs);
      return s.state === 'CONTAINER_EXITED' ? s : undefined;
    });
    assert.match(await readFile(s2.logPath, 'utf8'), /greetings from the image: mine\n$/);
    await assert.rejects(rt.createContainer(sb, container([], ['x'], { metadata: { name: 'c', attempt: 1 } }), sc), (e: unknown) => e instanceof RuntimeError && e.code === 'InvalidArgument');
  });

  it('runs a missing image on the host PATH, or rejects it with NotFound when configured to', async () => {
    const { root, rt } = fresh();
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(sb, container(['/bin/sh', '-c', 'exit 0'], [], { image: 'nowhere/none:1' }), sc);
    assert.equal((await rt.containerStatus(id)).imageRef, '');
    await assert.rejects(rt.createContainer(sb, container([], [], { image: 'nowhere/none:1', metadata: { name: 'd', attempt: 0 } }), sc), /no command specified/);
    const strict = fresh({ missingImages: 'reject' });
    const sc2 = sandbox(strict.root);
    const sb2 = await strict.rt.runPodSandbox(sc2);
    await assert.rejects(strict.rt.createContainer(sb2, container(['/bin/sh'], [], { image: 'nowhere/none:1' }), sc2), (e: unknown) => e instanceof RuntimeError && e.code === 'NotFound');
  });

  it('fails to start a command that does not exist: StartError, exit code 128', async () => {
    const { root, rt } = fresh();
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(sb, container(['/no/such/command'], []), sc);
    // runc's words, not Node's (spawn /no/such/command ENOENT).
    await assert.rejects(rt.startContainer(id), /unable to start container process: exec: "\/no\/such\/command": stat \/no\/such\/command: no such file or directory$/);
    const s = await rt.containerStatus(id);
    assert.equal(s.state, 'CONTAINER_EXITED');
    assert.equal(s.exitCode, 128);
    assert.equal(s.reason, 'StartError');
    assert.equal(s.message, 'unable to start container process: exec: "/no/such/command": stat /no/such/command: no such file or directory');
  });

  it('starts a container once even when asked twice at the same time', async () => {
    const { root, rt } = fresh();
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(sb, container(['/bin/sh', '-c', 'exit 0'], []), sc);
    const results = await Promise.allSettled([rt.startContainer(id), rt.startContainer(id)]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected');
    assert.ok(rejected?.status === 'rejected' && rejected.reason instanceof RuntimeError && rejected.reason.code === 'InvalidArgument');
  });

  it('runs a container at the nice value of its CPU shares (BestEffort: 19), one with a full CPU unchanged', async () => {
    const { root, options, rt } = fresh();
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const niceOf = async (shares: number, name: string): Promise<number> => {
      const id = await rt.createContainer(sb, container(['/bin/sh', '-c', 'while true; do sleep 1; done'], [], { metadata: { name, attempt: 0 }, linux: { resources: { cpuShares: shares } } }), sc);
      await rt.startContainer(id);
      const state = readJsonIfExists<ShimState>(shimStateFile(join(containersDir(options.stateDir), id)));
      assert.ok(state !== undefined && state.pid > 0);
      return getPriority(state.pid);
    };
    const base = getPriority();
    assert.equal(await niceOf(2, 'best-effort'), Math.max(19, base));
    assert.equal(await niceOf(1024, 'one-cpu'), base);
  });

  it('gives an attach connection whose header never came the exit code and its end when the container stops', async () => {
    const { root, rt } = fresh();
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(sb, container(['/bin/sh', '-c', 'while true; do sleep 1; done'], []), sc);
    await rt.startContainer(id);
    // Connected, header not sent: the shim does not count it as an attach client yet.
    const socket = connect(attachSocketPath(id));
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const exitCodes: number[] = [];
    const decoder = new FrameDecoder((type, payload) => {
      if (type === FRAME_EXIT) exitCodes.push(Number(payload.toString('utf8')));
    });
    socket.on('data', (c: Buffer) => decoder.push(c));
    const ended = new Promise<void>((resolve) => socket.once('end', resolve));
    await rt.stopContainer(id, 0);
    const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the shim never ended the connection')), 10_000).unref());
    await Promise.race([ended, deadline]);
    socket.destroy();
    assert.deepEqual(exitCodes, [137]);
  });

  /** A new sandbox with one container that runs until killed, started. */
  const startLooping = async (rt: RuntimeService, root: string): Promise<{ sb: string; id: string }> => {
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(sb, container(['/bin/sh', '-c', 'while true; do sleep 1; done'], []), sc);
    await rt.startContainer(id);
    return { sb, id };
  };
  const exitedStatus = (rt: RuntimeService, id: string) =>
    eventually(`container ${id} to exit`, async () => {
      const st = await rt.containerStatus(id);
      return st.state === 'CONTAINER_EXITED' ? st : undefined;
    });

  it('reports a container whose shim was killed as exited', async () => {
    const { root, options, rt } = fresh();
    const { id } = await startLooping(rt, root);
    const state = shimStateOf(options.stateDir, id);
    process.kill(state.shimPid, 'SIGKILL');
    const s = await exitedStatus(rt, id);
    assert.equal(s.exitCode, 255);
    process.kill(-state.pid, 'SIGKILL');
  });

  describe('state kept in memory', () => {
    it('sees a container exit while its running state is kept: in its status and in listings', async () => {
      const { root, options, rt } = fresh();
      const { sb, id } = await startLooping(rt, root);
      assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_RUNNING');
      assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_RUNNING', 'asked twice: the kept state');
      assert.deepEqual((await rt.listContainers({ podSandboxId: sb })).map((c) => c.state), ['CONTAINER_RUNNING']);
      process.kill(-shimStateOf(options.stateDir, id).pid, 'SIGKILL'); // not through the runtime: only the shim's state.json tells
      const s = await exitedStatus(rt, id);
      assert.equal(s.exitCode, 137);
      assert.equal(s.reason, 'Error');
      assert.deepEqual((await rt.listContainers({ podSandboxId: sb })).map((c) => c.state), ['CONTAINER_EXITED']);
      assert.deepEqual(await rt.listContainers({ podSandboxId: sb, state: 'CONTAINER_RUNNING' }), []);
    });

    it('keeps a recorded exit (the shim never writes state.json after it), and a restarted runtime reads state.json from disk', async () => {
      const { root, options, rt } = fresh();
      const { id } = await startLooping(rt, root);
      const running = await rt.containerStatus(id);
      assert.equal(running.state, 'CONTAINER_RUNNING');
      const file = shimStateFile(join(containersDir(options.stateDir), id));
      const state = shimStateOf(options.stateDir, id);
      process.kill(-state.pid, 'SIGKILL');
      await exitedStatus(rt, id);
      // Rewritten after the (final) exit was read: a recorded exit is final and never read again.
      writeJsonAtomic(file, { ...state, finishedAt: state.startedAt, exitCode: 9 });
      assert.equal((await rt.containerStatus(id)).exitCode, 137);
      // A new runtime (a restarted kubelet) reads it from disk.
      const again = newProcessRuntime(options).runtime;
      assert.equal((await again.containerStatus(id)).exitCode, 9);
    });

    it('a restarted runtime reads sandboxes and containers from disk; two runtimes over one directory see what the other made and removed', async () => {
      const { root, options, rt } = fresh();
      const sc = sandbox(root);
      const sb = await rt.runPodSandbox(sc);
      const done = await rt.createContainer(sb, container(['/bin/sh', '-c', 'exit 7'], []), sc);
      await rt.startContainer(done);
      assert.equal((await exitedStatus(rt, done)).exitCode, 7);
      const created = await rt.createContainer(sb, container(['/bin/true'], [], { metadata: { name: 'c', attempt: 1 } }), sc);
      assert.deepEqual((await rt.listContainers({ podSandboxId: sb })).map((c) => [c.id, c.state]), [
        [done, 'CONTAINER_EXITED'],
        [created, 'CONTAINER_CREATED'],
      ]);

      const again = newProcessRuntime(options).runtime;
      assert.deepEqual((await again.listPodSandbox()).map((s) => [s.id, s.state]), [[sb, 'SANDBOX_READY']]);
      assert.deepEqual((await again.listContainers({ podSandboxId: sb })).map((c) => [c.id, c.state]), [
        [done, 'CONTAINER_EXITED'],
        [created, 'CONTAINER_CREATED'],
      ]);
      assert.equal((await again.containerStatus(done)).exitCode, 7);
      // The second starts the container the first created; the first sees it run and exit.
      await again.startContainer(created);
      assert.equal((await exitedStatus(rt, created)).exitCode, 0);
      // The second removes one: the first no longer finds it.
      await again.removeContainer(done);
      await assert.rejects(rt.containerStatus(done), (e: unknown) => e instanceof RuntimeError && e.code === 'NotFound');
      assert.deepEqual((await rt.listContainers({ podSandboxId: sb })).map((c) => c.id), [created]);
      // The first makes one: the second lists it.
      const third = await rt.createContainer(sb, container(['/bin/true'], [], { metadata: { name: 'd', attempt: 0 } }), sc);
      assert.deepEqual((await again.listContainers({ podSandboxId: sb })).map((c) => c.id), [created, third]);
      await again.removePodSandbox(sb);
      assert.deepEqual(await rt.listPodSandbox(), []);
      assert.deepEqual(await rt.listContainers(), []);
    });

    it('finds no more a running container another runtime removed', async () => {
      const { root, options, rt } = fresh();
      const { id } = await startLooping(rt, root);
      assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_RUNNING');
      const other = newProcessRuntime(options).runtime;
      await other.removeContainer(id);
      await assert.rejects(rt.containerStatus(id), (e: unknown) => e instanceof RuntimeError && e.code === 'NotFound');
      assert.deepEqual(await rt.listContainers(), []);
    });

    it('skips a container directory whose record is not written yet, and lists it once it is', async () => {
      const { root, options, rt } = fresh();
      const sc = sandbox(root);
      const sb = await rt.runPodSandbox(sc);
      const id = await rt.createContainer(sb, container(['/bin/true'], []), sc);
      const record = readJsonIfExists<ContainerRecord>(join(containersDir(options.stateDir), id, 'container.json'));
      assert.ok(record);
      const late = 'f'.repeat(64);
      mkdirSync(join(containersDir(options.stateDir), late));
      assert.deepEqual((await rt.listContainers()).map((c) => c.id), [id]);
      await assert.rejects(rt.containerStatus(late), (e: unknown) => e instanceof RuntimeError && e.code === 'NotFound');
      writeJsonAtomic(join(containersDir(options.stateDir), late, 'container.json'), { ...record, id: late, metadata: { name: 'late', attempt: 0 } });
      assert.deepEqual((await rt.listContainers()).map((c) => c.id), [id, late]);
      assert.equal((await rt.containerStatus(late)).state, 'CONTAINER_CREATED');
    });

    it('orders creation times as numbers', () => {
      const times = ['1000000000000000000', '999999999999999999', '1000000000000000001', '5', '0'];
      assert.deepEqual([...times].sort(compareDecimal), [...times].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)));
      assert.equal(compareDecimal('42', '42'), 0);
    });
  });

  describe('the shim daemon', () => {
    const stateOf = (stateDir: string, id: string): ShimState => {
      const state = readJsonIfExists<ShimState>(shimStateFile(join(containersDir(stateDir), id)));
      assert.ok(state, `no state.json for ${id}`);
      return state;
    };
    const exited = (rt: RuntimeService, id: string) =>
      eventually(`container ${id} to exit`, async () => {
        const st = await rt.containerStatus(id);
        return st.state === 'CONTAINER_EXITED' ? st : undefined;
      });

    it('supervises every container of the runtime, outlives a closed runtime while a container runs, and then exits', async () => {
      const t = tempRoot();
      roots.push(t);
      const first = newProcessRuntime(t.options);
      const sc = sandbox(t.root);
      const sb = await first.runtime.runPodSandbox(sc);
      const long = await first.runtime.createContainer(sb, container(['/bin/sh', '-c', 'while true; do sleep 1; done'], []), sc);
      const short = await first.runtime.createContainer(sb, container(['/bin/sh', '-c', 'echo from-the-daemon'], [], { metadata: { name: 'd', attempt: 0 } }), sc);
      await first.runtime.startContainer(long);
      await first.runtime.startContainer(short);
      const daemon = stateOf(t.options.stateDir, long).shimPid;
      assert.notEqual(daemon, process.pid);
      assert.equal(stateOf(t.options.stateDir, short).shimPid, daemon, 'one daemon for both');
      await exited(first.runtime, short);
      assert.match(await readFile((await first.runtime.containerStatus(short)).logPath, 'utf8'), / stdout F from-the-daemon\n$/);
      await first.close();
      // A restarted kubelet's runtime finds the same daemon, still supervising the running container.
      const second = newProcessRuntime(t.options);
      assert.equal((await second.runtime.containerStatus(long)).state, 'CONTAINER_RUNNING');
      const third = await second.runtime.createContainer(sb, container(['/bin/sh', '-c', 'exit 4'], [], { metadata: { name: 'e', attempt: 0 } }), sc);
      await second.runtime.startContainer(third);
      assert.equal(stateOf(t.options.stateDir, third).shimPid, daemon);
      assert.equal((await exited(second.runtime, third)).exitCode, 4);
      await second.close();
      assert.ok(isAlive(daemon), 'a container still runs');
      await second.runtime.stopContainer(long, 0);
      await eventually('the daemon to exit', async () => (isAlive(daemon) ? undefined : true));
    });

    it('boots a new daemon when the last one was killed', async () => {
      const { root, options, rt } = fresh();
      const sc = sandbox(root);
      const sb = await rt.runPodSandbox(sc);
      const a = await rt.createContainer(sb, container(['/bin/sh', '-c', 'exit 0'], []), sc);
      await rt.startContainer(a);
      const killed = stateOf(options.stateDir, a).shimPid;
      await exited(rt, a);
      try {
        process.kill(killed, 'SIGKILL');
      } catch {
        // it may have exited on its own already
      }
      await eventually('the daemon to be gone', async () => (isAlive(killed) ? undefined : true));
      const b = await rt.createContainer(sb, container(['/bin/sh', '-c', 'exit 3'], [], { metadata: { name: 'b', attempt: 0 } }), sc);
      await rt.startContainer(b);
      assert.notEqual(stateOf(options.stateDir, b).shimPid, killed);
      assert.equal((await exited(rt, b)).exitCode, 3);
    });
  });

  it('forwards a port to the pod IP', async () => {
    const { root, rt } = fresh();
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const ip = (await rt.podSandboxStatus(sb)).network?.ip ?? '';
    const server = `require('net').createServer((s) => s.end('hello from ' + s.localAddress)).listen(0, '${ip}', function () { console.log('port ' + this.address().port); })`;
    const id = await rt.createContainer(sb, container([process.execPath, '-e', server], []), sc);
    await rt.startContainer(id);
    const logPath = (await rt.containerStatus(id)).logPath;
    const port = await eventually('the server to listen', async () => {
      const m = / stdout F port (\d+)\n/.exec(await readFile(logPath, 'utf8').catch(() => ''));
      return m ? Number(m[1]) : undefined;
    });
    const stream = await rt.portForward(sb, port);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
    assert.equal(Buffer.concat(chunks).toString(), `hello from ${ip}`);
    await assert.rejects(rt.portForward(sb, 1), (e: unknown) => e instanceof RuntimeError && e.code === 'Unknown');
    await rt.stopContainer(id, 5);
  });

  it('refuses attach with stdin to a container without stdin, and exec in a stopped container', async () => {
    const { root, rt } = fresh();
    const sc = sandbox(root);
    const sb = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(sb, container(['/bin/sh', '-c', 'echo hi; while true; do sleep 1; done'], []), sc);
    await rt.startContainer(id);
    await assert.rejects(rt.attach({ containerId: id, stdin: true, stdout: true, stderr: false, tty: false }), (e: unknown) => e instanceof RuntimeError && e.code === 'InvalidArgument');
    const session = await rt.attach({ containerId: id, stdin: false, stdout: true, stderr: true, tty: false });
    await rt.stopContainer(id, 0);
    assert.equal(await session.exit, 137);
    await assert.rejects(rt.execSync(id, ['true'], 1), /not running/);
  });
});

describe('the termination-message file on the process runtime', () => {
  const annotations = { 'io.kubernetes.container.terminationMessagePath': '/dev/termination-log' };
  const mounts = [
    { containerPath: '/data', hostPath: '/srv/data', readonly: true },
    { containerPath: '/dev/termination-log', hostPath: '/k/pods/u/containers/main/0a1b2c3d', readonly: false },
  ];

  it("names the host file mounted at terminationMessagePath in K8TS_TERMINATION_MESSAGE_PATH, unless the pod set it", () => {
    const env = [{ key: 'A', value: '1' }];
    assert.deepEqual(withTerminationMessageEnv(env, { annotations, mounts }), [...env, { key: TERMINATION_MESSAGE_PATH_ENV, value: '/k/pods/u/containers/main/0a1b2c3d' }]);
    const own = [{ key: TERMINATION_MESSAGE_PATH_ENV, value: '/tmp/mine' }];
    assert.deepEqual(withTerminationMessageEnv(own, { annotations, mounts }), own);
    assert.deepEqual(withTerminationMessageEnv(env, { annotations, mounts: mounts.slice(0, 1) }), env, 'no file mounted there');
    assert.deepEqual(withTerminationMessageEnv(env, { annotations: {}, mounts }), env, 'no terminationMessagePath');
  });
});
