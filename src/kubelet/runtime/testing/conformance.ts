/**
 * The container runtime conformance suite: the contract of runtime/interface.ts
 * written once and run by each implementation's test (process now; cri and sim
 * later), so that the kubelet relies on the interface and never on a runtime.
 *
 * @example
 *   runRuntimeConformance('process', async () => ({ runtime, reopen, image, logRoot, dispose }));
 *
 * Containers run `/bin/sh -c …` with POSIX tools only (sh, echo, printf, cat,
 * sleep, trap), which busybox has, so the image only needs a shell. Every wait
 * is a poll of a condition with a deadline; nothing sleeps.
 *
 * A runtime that lacks a capability says so in `features` (sim: commands do
 * not really run and nothing streams); the cases that need it are then
 * skipped by name, or check only what the runtime can honour.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  isRuntimeNotFound,
  RuntimeError,
  type ContainerConfig,
  type ContainerRuntime,
  type ContainerStatus,
  type PodSandboxConfig,
  type RuntimeService,
} from '../interface.js';

/** What a runtime can do; every field defaults to true (the process runtime has them all). */
export interface RuntimeFeatures {
  /** Containers run their commands: env, args and working directory apply, output reaches the log, signals reach the process, execSync runs. */
  readonly runsCommands?: boolean;
  /** exec and attach return live sessions, portForward a live stream. */
  readonly streaming?: boolean;
  /** Sandboxes get pod IPs; false: every sandbox of the suite is host-network. */
  readonly podNetwork?: boolean;
}

export interface RuntimeUnderTest {
  readonly runtime: ContainerRuntime;
  /** A second runtime over the same state, as a restarted kubelet would open it. */
  reopen(): Promise<ContainerRuntime>;
  /** An image whose containers can run /bin/sh and POSIX tools (busybox for cri). */
  readonly image: string;
  /** An image name that is not present. */
  readonly absentImage: string;
  /** A directory under which the suite puts each sandbox's log directory. */
  readonly logRoot: string;
  /** Kill everything the runtime started (by pid) and remove temporary state; called once in `after`. */
  dispose(): Promise<void>;
  /** Default: every feature. */
  readonly features?: RuntimeFeatures;
}

/** Polls `check` until it returns a value other than undefined, or fails naming `what`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function rejectsWith(promise: Promise<unknown>, code: RuntimeError['code']): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof RuntimeError, `expected a RuntimeError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

async function readAll(stream: NodeJS.ReadableStream | undefined): Promise<string> {
  if (!stream) return '';
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const HOST_NETWORK = { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } as const;

const RFC3339_NANO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;
const UNKNOWN_ID = '0'.repeat(64);

/** `skip`: a reason to skip the whole suite (e.g. containerd cannot run on this machine). */
export function runRuntimeConformance(name: string, makeRuntime: () => Promise<RuntimeUnderTest>, options: { readonly skip?: string } = {}): void {
  describe(`container runtime conformance: ${name}`, options.skip !== undefined ? { skip: options.skip } : {}, () => {
    let under: RuntimeUnderTest;
    let rt: RuntimeService;
    let seq = 0;
    let runsCommands = true;
    let streaming = true;
    let podNetwork = true;

    before(async () => {
      under = await makeRuntime();
      rt = under.runtime.runtime;
      runsCommands = under.features?.runsCommands ?? true;
      streaming = under.features?.streaming ?? true;
      podNetwork = under.features?.podNetwork ?? true;
    });
    /** Skips a case (with the reason in the report) when the runtime lacks a feature; node:test decides before `before` runs, hence the check inside. */
    const unless = (t: { skip(message?: string): void }, missing: boolean, reason: string): boolean => {
      if (missing) t.skip(reason);
      return missing;
    };
    after(async () => {
      try {
        for (const s of await rt.listPodSandbox()) await rt.removePodSandbox(s.id);
      } finally {
        await under.runtime.close();
        await under.dispose();
      }
    });

    const sandboxConfig = (overrides: Partial<PodSandboxConfig> = {}): PodSandboxConfig => {
      const n = `pod-${++seq}`;
      return {
        metadata: { name: n, uid: `uid-${seq}`, namespace: 'conformance', attempt: 0 },
        hostname: n,
        logDirectory: join(under.logRoot, `conformance_${n}_uid-${seq}`),
        portMappings: [],
        labels: { suite: 'conformance', pod: n },
        annotations: { note: 'x' },
        ...(podNetwork ? {} : { linux: { namespaceOptions: HOST_NETWORK } }),
        ...overrides,
      };
    };
    const containerConfig = (cname: string, script: string, overrides: Partial<ContainerConfig> = {}): ContainerConfig => ({
      metadata: { name: cname, attempt: 0 },
      image: under.image,
      command: ['/bin/sh', '-c'],
      args: [script],
      envs: [],
      mounts: [],
      labels: { container: cname },
      annotations: {},
      logPath: `${cname}/0.log`,
      stdin: false,
      stdinOnce: false,
      tty: false,
      ...overrides,
    });
    /** A ready sandbox and a started container running `script`. */
    const runContainer = async (script: string, overrides: Partial<ContainerConfig> = {}) => {
      const sc = sandboxConfig();
      const sandboxId = await rt.runPodSandbox(sc);
      const id = await rt.createContainer(sandboxId, containerConfig('main', script, overrides), sc);
      await rt.startContainer(id);
      return { sandboxId, id, sc };
    };
    const exited = (id: string): Promise<ContainerStatus> =>
      eventually(`container ${id} to exit`, async () => {
        const s = await rt.containerStatus(id);
        return s.state === 'CONTAINER_EXITED' ? s : undefined;
      });
    const logOf = async (id: string): Promise<string> => readFile((await rt.containerStatus(id)).logPath, 'utf8');

    it('reports its version and readiness', async () => {
      const v = await rt.version();
      assert.equal(v.runtimeApiVersion, 'v1');
      assert.ok(v.runtimeName !== '');
      const s = await rt.status();
      assert.equal(s.conditions.find((c) => c.type === 'RuntimeReady')?.status, true);
    });

    it('runs, stops and removes a pod sandbox, idempotently', async () => {
      const sc = sandboxConfig();
      const id = await rt.runPodSandbox(sc);
      const status = await rt.podSandboxStatus(id);
      assert.equal(status.id, id);
      assert.deepEqual(status.metadata, sc.metadata);
      assert.equal(status.state, 'SANDBOX_READY');
      assert.ok(status.createdAt > 0n);
      if (podNetwork) assert.ok(status.network && status.network.ip !== '', 'a pod-network sandbox has an IP');
      assert.deepEqual(status.labels, sc.labels);
      assert.deepEqual(status.annotations, sc.annotations);
      assert.deepEqual((await rt.listPodSandbox({ id })).map((s) => s.state), ['SANDBOX_READY']);
      await rt.stopPodSandbox(id);
      await rt.stopPodSandbox(id);
      assert.equal((await rt.podSandboxStatus(id)).state, 'SANDBOX_NOTREADY');
      await rt.removePodSandbox(id);
      await rt.removePodSandbox(id);
      await rejectsWith(rt.podSandboxStatus(id), 'NotFound');
      assert.deepEqual(await rt.listPodSandbox({ id }), []);
    });

    it('gives each pod its own IP and host-network pods none', async (t) => {
      if (unless(t, !podNetwork, 'no pod network')) return;
      const a = await rt.runPodSandbox(sandboxConfig());
      const b = await rt.runPodSandbox(sandboxConfig());
      const host = await rt.runPodSandbox(sandboxConfig({ linux: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } }));
      const ipA = (await rt.podSandboxStatus(a)).network?.ip;
      const ipB = (await rt.podSandboxStatus(b)).network?.ip;
      assert.ok(ipA && ipB);
      assert.notEqual(ipA, ipB);
      assert.equal((await rt.podSandboxStatus(host)).network?.ip ?? '', '');
      for (const id of [a, b, host]) await rt.removePodSandbox(id);
    });

    it('moves a container Created → Running → Exited with exit code 0 and reason Completed', async () => {
      const sc = sandboxConfig();
      const sandboxId = await rt.runPodSandbox(sc);
      // With streaming the container ends when attach sends it a line; without, stopContainer ends it.
      const script = streaming ? 'read line; exit 0' : 'trap "exit 0" TERM; while true; do sleep 1; done';
      const id = await rt.createContainer(sandboxId, containerConfig('c', script, { stdin: true, stdinOnce: true }), sc);
      const created = await rt.containerStatus(id);
      assert.equal(created.state, 'CONTAINER_CREATED');
      assert.equal(created.startedAt, 0n);
      assert.deepEqual(created.metadata, { name: 'c', attempt: 0 });
      assert.equal(created.image, under.image);
      assert.ok(created.logPath.startsWith(sc.logDirectory));
      assert.notEqual(id, sandboxId);
      await rt.startContainer(id);
      const running = await rt.containerStatus(id);
      assert.equal(running.state, 'CONTAINER_RUNNING');
      assert.ok(running.startedAt >= created.createdAt);
      assert.equal(running.finishedAt, 0n);
      if (streaming) {
        // Let it finish: attach, send a line on stdin.
        const session = await rt.attach({ containerId: id, stdin: true, stdout: true, stderr: true, tty: false });
        session.stdin?.end('go\n');
        assert.equal(await session.exit, 0);
      } else {
        await rt.stopContainer(id, 10);
      }
      const done = await exited(id);
      assert.equal(done.exitCode, 0);
      assert.equal(done.reason, 'Completed');
      assert.ok(done.finishedAt >= done.startedAt);
      await rejectsWith(rt.startContainer(id), 'InvalidArgument');
    });

    it('reports a non-zero exit code with reason Error', async () => {
      const { id } = await runContainer('exit 7');
      const done = await exited(id);
      assert.equal(done.exitCode, 7);
      assert.equal(done.reason, 'Error');
    });

    it('passes env, args and the working directory to the command', async (t) => {
      if (unless(t, !runsCommands, 'commands do not run')) return;
      const { id } = await runContainer('echo "$GREETING $0 $1"; pwd', {
        args: ['echo "$GREETING $0 $1"; pwd', 'zero', 'one'],
        envs: [{ key: 'GREETING', value: 'hello' }],
        workingDir: '/tmp',
      });
      await exited(id);
      const lines = (await logOf(id)).trim().split('\n').map((l) => l.split(' ').slice(3).join(' '));
      assert.deepEqual(lines, ['hello zero one', '/tmp']);
    });

    it('writes stdout and stderr to the log in the CRI format, with partial lines', async (t) => {
      if (unless(t, !runsCommands, 'commands do not run')) return;
      const long = 20_000;
      const { id } = await runContainer(`echo out; echo err >&2; printf '%0${long}d\\n' 0; printf tail`);
      await exited(id);
      const records = (await logOf(id)).split('\n').filter((l) => l !== '').map((l) => {
        const m = /^(\S+) (stdout|stderr) (F|P) (.*)$/.exec(l);
        assert.ok(m, `a CRI log line: ${l.slice(0, 60)}`);
        assert.match(m[1]!, RFC3339_NANO);
        return { stream: m[2], tag: m[3], text: m[4]! };
      });
      const out = records.filter((r) => r.stream === 'stdout');
      assert.deepEqual(records.filter((r) => r.stream === 'stderr'), [{ stream: 'stderr', tag: 'F', text: 'err' }]);
      assert.deepEqual(out[0], { stream: 'stdout', tag: 'F', text: 'out' });
      assert.deepEqual(out.slice(1, -2).map((r) => r.tag), ['P']);
      assert.equal(out[1]!.text.length, 16 * 1024);
      assert.deepEqual({ ...out[out.length - 2]!, text: out[out.length - 2]!.text.length }, { stream: 'stdout', tag: 'F', text: long - 16 * 1024 });
      // Text left without a newline at the end: the process runtime writes it as F, containerd as P (nothing follows).
      const last = out[out.length - 1]!;
      assert.deepEqual({ ...last, tag: last.tag === 'P' ? 'F' : last.tag }, { stream: 'stdout', tag: 'F', text: 'tail' });
    });

    it('runs execSync in the container and enforces its timeout', async (t) => {
      if (unless(t, !runsCommands, 'commands do not run')) return;
      const { id } = await runContainer('trap "exit 0" TERM; while true; do sleep 1; done', { envs: [{ key: 'WHO', value: 'probe' }] });
      const r = await rt.execSync(id, ['/bin/sh', '-c', 'echo "hi $WHO"; echo oops >&2; exit 3'], 5);
      assert.equal(r.stdout.toString(), 'hi probe\n');
      assert.equal(r.stderr.toString(), 'oops\n');
      assert.equal(r.exitCode, 3);
      await rejectsWith(rt.execSync(id, ['/bin/sh', '-c', 'sleep 30'], 1), 'DeadlineExceeded');
      await rt.stopContainer(id, 5);
      const done = await rt.containerStatus(id);
      assert.equal(done.state, 'CONTAINER_EXITED');
      assert.equal(done.reason, 'Completed');
    });

    it('streams exec with stdin, stdout, stderr and the exit code', async (t) => {
      if (unless(t, !streaming || !runsCommands, 'no streaming')) return;
      const { id } = await runContainer('trap "exit 0" TERM; while true; do sleep 1; done');
      const s = await rt.exec({ containerId: id, cmd: ['/bin/sh', '-c', 'cat; echo bye >&2; exit 5'], stdin: true, stdout: true, stderr: true, tty: false });
      const out = readAll(s.stdout);
      const err = readAll(s.stderr);
      s.stdin?.end('ping\n');
      assert.equal(await s.exit, 5);
      assert.equal(await out, 'ping\n');
      assert.equal(await err, 'bye\n');
      const tty = await rt.exec({ containerId: id, cmd: ['/bin/sh', '-c', 'echo a; echo b >&2'], stdin: false, stdout: true, stderr: true, tty: true });
      assert.equal(tty.stderr, undefined, 'with a tty stderr is merged into stdout');
      const merged = await readAll(tty.stdout);
      assert.equal(await tty.exit, 0);
      assert.deepEqual(merged.split(/\r?\n/).filter((l) => l !== '').sort(), ['a', 'b']);
    });

    it('stops with SIGTERM, and with SIGKILL (137, Error) when SIGTERM is ignored', async (t) => {
      if (unless(t, !runsCommands, 'commands do not run')) return;
      const polite = await runContainer('trap "exit 0" TERM; echo up; while true; do sleep 1; done');
      await eventually('the trap to be set', async () => ((await logOf(polite.id)).includes('up') ? true : undefined));
      await rt.stopContainer(polite.id, 10);
      assert.equal((await rt.containerStatus(polite.id)).exitCode, 0);
      const stubborn = await runContainer('trap "" TERM; echo up; while true; do sleep 1; done');
      await eventually('the trap to be set', async () => ((await logOf(stubborn.id)).includes('up') ? true : undefined));
      await rt.stopContainer(stubborn.id, 1);
      const s = await rt.containerStatus(stubborn.id);
      assert.equal(s.state, 'CONTAINER_EXITED');
      assert.equal(s.exitCode, 137);
      assert.equal(s.reason, 'Error');
      await rt.stopContainer(stubborn.id, 1);
    });

    it('lists containers and sandboxes with filters', async () => {
      const sc = sandboxConfig({ labels: { suite: 'conformance', pick: 'me' } });
      const sandboxId = await rt.runPodSandbox(sc);
      const a = await rt.createContainer(sandboxId, containerConfig('a', 'exit 0', { labels: { role: 'a' } }), sc);
      const b = await rt.createContainer(sandboxId, containerConfig('b', 'trap "exit 0" TERM; while true; do sleep 1; done', { labels: { role: 'b' } }), sc);
      await rt.startContainer(b);
      assert.deepEqual((await rt.listPodSandbox({ labelSelector: { pick: 'me' } })).map((s) => s.id), [sandboxId]);
      assert.deepEqual((await rt.listPodSandbox({ id: sandboxId, state: 'SANDBOX_NOTREADY' })), []);
      assert.deepEqual((await rt.listContainers({ podSandboxId: sandboxId })).map((c) => c.id).sort(), [a, b].sort());
      assert.deepEqual((await rt.listContainers({ podSandboxId: sandboxId, state: 'CONTAINER_CREATED' })).map((c) => c.id), [a]);
      assert.deepEqual((await rt.listContainers({ podSandboxId: sandboxId, state: 'CONTAINER_RUNNING' })).map((c) => c.id), [b]);
      assert.deepEqual((await rt.listContainers({ labelSelector: { role: 'b' }, podSandboxId: sandboxId })).map((c) => c.id), [b]);
      const [listed] = await rt.listContainers({ id: b });
      assert.equal(listed?.podSandboxId, sandboxId);
      assert.deepEqual(listed?.metadata, { name: 'b', attempt: 0 });
      assert.equal(listed?.image, under.image);
      await rt.stopPodSandbox(sandboxId);
      assert.equal((await rt.containerStatus(b)).state, 'CONTAINER_EXITED');
      await rt.removePodSandbox(sandboxId);
      assert.deepEqual(await rt.listContainers({ podSandboxId: sandboxId }), []);
      await rejectsWith(rt.containerStatus(a), 'NotFound');
    });

    it('is adopted by a new runtime over the same state: same ids, still running', async () => {
      const { sandboxId, id } = await runContainer('trap "exit 0" TERM; while true; do sleep 1; done');
      const before = await rt.containerStatus(id);
      const second = await under.reopen();
      try {
        const again = await second.runtime.containerStatus(id);
        assert.equal(again.state, 'CONTAINER_RUNNING');
        assert.equal(again.startedAt, before.startedAt);
        assert.deepEqual((await second.runtime.listContainers({ podSandboxId: sandboxId })).map((c) => [c.id, c.state]), [[id, 'CONTAINER_RUNNING']]);
        assert.equal((await second.runtime.podSandboxStatus(sandboxId)).network?.ip, (await rt.podSandboxStatus(sandboxId)).network?.ip);
        if (runsCommands) assert.equal((await second.runtime.execSync(id, ['/bin/sh', '-c', 'echo adopted'], 5)).stdout.toString(), 'adopted\n');
        await second.runtime.stopContainer(id, 5);
        assert.equal((await rt.containerStatus(id)).reason, 'Completed');
      } finally {
        await second.close();
      }
    });

    it('removes containers idempotently, keeping the log', async () => {
      const { id } = await runContainer('echo kept; exit 0');
      await exited(id);
      const logPath = (await rt.containerStatus(id)).logPath;
      await rt.removeContainer(id);
      await rt.removeContainer(id);
      await rt.stopContainer(id, 1);
      await rejectsWith(rt.containerStatus(id), 'NotFound');
      const log = await readFile(logPath, 'utf8');
      if (runsCommands) assert.match(log, / stdout F kept\n$/);
      else assert.match(log, /^\S+ (stdout|stderr) [FP] .*\n$/m, 'the log is in the CRI format');
    });

    it('rejects unknown ids with NotFound', async () => {
      const sc = sandboxConfig();
      await rejectsWith(rt.podSandboxStatus(UNKNOWN_ID), 'NotFound');
      await rejectsWith(rt.podSandboxStatus('no-such-sandbox'), 'NotFound');
      await rejectsWith(rt.createContainer(UNKNOWN_ID, containerConfig('x', 'true'), sc), 'NotFound');
      await rejectsWith(rt.containerStatus(UNKNOWN_ID), 'NotFound');
      await rejectsWith(rt.startContainer(UNKNOWN_ID), 'NotFound');
      await rejectsWith(rt.execSync(UNKNOWN_ID, ['true'], 1), 'NotFound');
      await rejectsWith(rt.exec({ containerId: UNKNOWN_ID, cmd: ['true'], stdin: false, stdout: true, stderr: true, tty: false }), 'NotFound');
      await rejectsWith(rt.attach({ containerId: UNKNOWN_ID, stdin: false, stdout: true, stderr: true, tty: false }), 'NotFound');
      await rejectsWith(rt.portForward(UNKNOWN_ID, 80), 'NotFound');
      await rt.stopContainer(UNKNOWN_ID, 1);
      await rt.removeContainer(UNKNOWN_ID);
      await rt.stopPodSandbox(UNKNOWN_ID);
      await rt.removePodSandbox(UNKNOWN_ID);
      assert.ok(isRuntimeNotFound(await rt.containerStatus(UNKNOWN_ID).catch((e: unknown) => e)));
    });

    it('answers imageStatus of an absent image with undefined', async () => {
      assert.equal(await under.runtime.images.imageStatus(under.absentImage), undefined);
      assert.ok(Array.isArray(await under.runtime.images.listImages()));
    });
  });
}
