import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RuntimeError, type ContainerConfig, type PodSandboxConfig } from '../interface.js';
import { runRuntimeConformance } from '../testing/conformance.js';
import { newSimRuntime, newSimState, type SimRuntimeOptions } from './sim-runtime.js';
import { SIM_EXEC_EXIT_CODE, SIM_EXIT_AFTER_MS, SIM_EXIT_CODE, SIM_START_ERROR } from './sim-program.js';

const isCode = (code: RuntimeError['code'], message?: RegExp) => (e: unknown): boolean =>
  e instanceof RuntimeError && e.code === code && (message === undefined || message.test(e.message));

runRuntimeConformance('sim', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-runtime-'));
  const state = newSimState({ images: ['busybox:1.35'] });
  const options: SimRuntimeOptions = { state, podCIDR: '10.244.9.0/24' };
  return {
    runtime: newSimRuntime(options),
    reopen: async () => newSimRuntime(options),
    image: 'docker.io/library/busybox:1.35',
    absentImage: 'example.invalid/absent:1',
    logRoot: join(root, 'pods'),
    dispose: async () => rmSync(root, { recursive: true, force: true }),
    features: { runsCommands: false, streaming: false },
  };
});

describe('sim runtime', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const sandbox = (extra: Partial<PodSandboxConfig> = {}): PodSandboxConfig => ({
    metadata: { name: `p${++n}`, uid: `u${n}`, namespace: 'ns', attempt: 0 },
    hostname: `p${n}`,
    logDirectory: join(root, 'pods', `p${n}`),
    portMappings: [],
    labels: {},
    annotations: {},
    ...extra,
  });
  const container = (argv: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig => ({
    metadata: { name: 'c', attempt: 0 },
    image: 'busybox',
    command: argv,
    args: [],
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

  it('makes the same ids for the same seed and sequence, and different ones per seed', async () => {
    const ids = async (seed: string) => {
      const rt = newSimRuntime({ idSeed: seed, podCIDR: '10.244.1.0/24' }).runtime;
      const sc = sandbox();
      const s = await rt.runPodSandbox(sc);
      return [s, await rt.createContainer(s, container(['httpd']), sc)];
    };
    const a = await ids('node-a');
    assert.deepEqual(await ids('node-a'), a);
    assert.notDeepEqual(await ids('node-b'), a);
    for (const id of a) assert.match(id, /^[0-9a-f]{64}$/);
  });

  it('exits a container when its program says, from the clock, with no timer', async () => {
    let now = 1_000_000_000_000n;
    const rt = newSimRuntime({ podCIDR: '10.244.1.0/24', clock: () => now }).runtime;
    const sc = sandbox({ annotations: { [SIM_EXIT_CODE]: '3', [SIM_EXIT_AFTER_MS]: '500' } });
    const s = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(s, container(['httpd']), sc);
    await rt.startContainer(id);
    assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_RUNNING');
    now += 499_000_000n;
    assert.equal((await rt.listContainers({ state: 'CONTAINER_RUNNING' })).length, 1);
    now += 1_000_000n;
    const done = await rt.containerStatus(id);
    assert.deepEqual([done.state, done.exitCode, done.reason, done.finishedAt - done.startedAt], ['CONTAINER_EXITED', 3, 'Error', 500_000_000n]);
    await rt.stopContainer(id, 1);
    assert.equal((await rt.containerStatus(id)).exitCode, 3, 'stopping an exited container changes nothing');
    assert.match(await readFile(done.logPath, 'utf8'), /^\S+ stdout F sim: container c started \(attempt 0\), exits with code 3 after 500 ms\n$/);
  });

  it('fails a start on request: StartError, exit code 128', async () => {
    const rt = newSimRuntime({ podCIDR: '10.244.1.0/24' }).runtime;
    const sc = sandbox();
    const s = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(s, container(['httpd'], { annotations: { [SIM_START_ERROR]: 'no such file' } }), sc);
    await assert.rejects(rt.startContainer(id), isCode('Unknown', /no such file/));
    const st = await rt.containerStatus(id);
    assert.deepEqual([st.state, st.exitCode, st.reason, st.message], ['CONTAINER_EXITED', 128, 'StartError', 'no such file']);
  });

  it('rejects a malformed annotation with InvalidArgument', async () => {
    const rt = newSimRuntime({ podCIDR: '10.244.1.0/24' }).runtime;
    const sc = sandbox({ annotations: { [SIM_EXIT_CODE]: 'soon' } });
    const s = await rt.runPodSandbox(sc);
    await assert.rejects(rt.createContainer(s, container(['httpd']), sc), isCode('InvalidArgument', /exit-code/));
  });

  it('waits the start latency, and refuses a second start meanwhile', async () => {
    const rt = newSimRuntime({ podCIDR: '10.244.1.0/24', startLatencyMs: 20 }).runtime;
    const sc = sandbox();
    const s = await rt.runPodSandbox(sc);
    const id = await rt.createContainer(s, container(['httpd']), sc);
    const first = rt.startContainer(id);
    assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_CREATED');
    await assert.rejects(rt.startContainer(id), isCode('InvalidArgument'));
    await first;
    assert.equal((await rt.containerStatus(id)).state, 'CONTAINER_RUNNING');
  });

  it('answers execSync with the configured code, and rejects streaming clearly', async () => {
    const rt = newSimRuntime({ podCIDR: '10.244.1.0/24' }).runtime;
    const sc = sandbox();
    const s = await rt.runPodSandbox(sc);
    const ok = await rt.createContainer(s, container(['httpd']), sc);
    const failing = await rt.createContainer(s, container(['httpd'], { metadata: { name: 'd', attempt: 0 }, annotations: { [SIM_EXEC_EXIT_CODE]: '1' } }), sc);
    await rt.startContainer(ok);
    await rt.startContainer(failing);
    assert.deepEqual(await rt.execSync(ok, ['cat', '/tmp/healthy'], 1), { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 });
    assert.equal((await rt.execSync(failing, ['cat', '/tmp/healthy'], 1)).exitCode, 1);
    await assert.rejects(rt.execSync(ok, [], 1), isCode('InvalidArgument'));
    await assert.rejects(rt.exec({ containerId: ok, cmd: ['sh'], stdin: false, stdout: true, stderr: true, tty: false }), isCode('Unknown', /runs no processes: exec/));
    await assert.rejects(rt.attach({ containerId: ok, stdin: false, stdout: true, stderr: true, tty: false }), isCode('Unknown', /attach/));
    await assert.rejects(rt.portForward(s, 80), isCode('Unknown', /port-forward/));
    await rt.stopContainer(ok, 1);
    await assert.rejects(rt.execSync(ok, ['true'], 1), isCode('Unknown', /not running/));
  });

  it('has only the configured images, and any image when none are configured', async () => {
    const strict = newSimRuntime({ podCIDR: '10.244.1.0/24', images: ['docker.io/library/busybox:1.35'] });
    assert.deepEqual((await strict.images.imageStatus('busybox:1.35'))?.repoTags, ['docker.io/library/busybox:1.35']);
    assert.equal(await strict.images.imageStatus('nginx'), undefined);
    const sc = sandbox();
    const s = await strict.runtime.runPodSandbox(sc);
    await assert.rejects(strict.runtime.createContainer(s, container(['httpd'], { image: 'nginx' }), sc), isCode('NotFound', /nginx/));
    strict.images.add('nginx');
    assert.deepEqual((await strict.images.listImages()).map((i) => i.repoTags[0]), ['docker.io/library/busybox:1.35', 'docker.io/library/nginx:latest']);
    await strict.images.removeImage('nginx:latest');
    assert.equal(await strict.images.imageStatus('nginx'), undefined);

    const open = newSimRuntime({ podCIDR: '10.244.1.0/24' });
    const img = await open.images.imageStatus('registry.example/app:2');
    assert.match(img?.id ?? '', /^sha256:[0-9a-f]{64}$/);
    await open.images.removeImage('registry.example/app:2');
    assert.equal(await open.images.imageStatus('registry.example/app:2'), undefined);
    assert.deepEqual(await open.images.listImages(), []);
  });

  it('runs out of pod addresses with Unavailable, frees them on removal, and takes a CIDR later', async () => {
    const rt = newSimRuntime({ podCIDR: '10.244.2.0/30', writeLogs: false }).runtime;
    const a = await rt.runPodSandbox(sandbox());
    assert.equal((await rt.podSandboxStatus(a)).network?.ip, '10.244.2.2');
    await assert.rejects(rt.runPodSandbox(sandbox()), isCode('Unavailable', /no free address/));
    await rt.removePodSandbox(a);
    assert.equal((await rt.podSandboxStatus(await rt.runPodSandbox(sandbox()))).network?.ip, '10.244.2.2');

    const late = newSimRuntime().runtime;
    assert.equal((await late.status()).conditions.find((c) => c.type === 'NetworkReady')?.status, false);
    await assert.rejects(late.runPodSandbox(sandbox()), isCode('Unavailable'));
    await assert.rejects(late.updateRuntimeConfig({ podCIDR: 'nope' }), isCode('InvalidArgument'));
    await late.updateRuntimeConfig({ podCIDR: '10.244.3.0/24' });
    assert.equal((await late.podSandboxStatus(await late.runPodSandbox(sandbox()))).network?.ip, '10.244.3.2');
  });

  it('holds thousands of running pods in one process', async () => {
    const nodes = 20;
    const podsPerNode = 110;
    const runtimes = Array.from({ length: nodes }, (_, i) => newSimRuntime({ idSeed: `node-${i}`, podCIDR: `10.245.${i}.0/24`, writeLogs: false }).runtime);
    for (const rt of runtimes) {
      for (let p = 0; p < podsPerNode; p++) {
        const sc = sandbox({ logDirectory: '' });
        const s = await rt.runPodSandbox(sc);
        await rt.startContainer(await rt.createContainer(s, container(['httpd'], { logPath: '' }), sc));
      }
    }
    let running = 0;
    for (const rt of runtimes) running += (await rt.listContainers({ state: 'CONTAINER_RUNNING' })).length;
    assert.equal(running, nodes * podsPerNode);
  });
});
