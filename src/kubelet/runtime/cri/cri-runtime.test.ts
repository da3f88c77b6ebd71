/**
 * The cri runtime against a fake CRI server (grpc-js over a unix socket in a
 * temporary directory): the mapping of requests and answers, and every error
 * path. The real containerd runs in test/e2e/kubelet/runtime-cri.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { RuntimeError, type ContainerConfig, type PodSandboxConfig } from '../interface.js';
import { criPackageDefinition } from './cri-proto.js';
import { grpcTarget, runtimeErrorCode } from './cri-connection.js';
import { newCriRuntime } from './cri-runtime.js';

type Handler = (request: Record<string, unknown>) => object | { error: { code: number; details: string } } | Promise<object>;

/** A CRI server whose methods answer from `handlers`; unknown methods answer UNIMPLEMENTED. */
async function fakeCri(socket: string, handlers: Record<string, Handler>): Promise<{ server: Server; requests: { rpc: string; request: Record<string, unknown> }[] }> {
  const server = new Server();
  const requests: { rpc: string; request: Record<string, unknown> }[] = [];
  for (const service of ['RuntimeService', 'ImageService']) {
    const definition = criPackageDefinition()[`runtime.v1.${service}`];
    if (!definition || 'format' in definition) throw new Error(service);
    const impl: UntypedServiceImplementation = {};
    for (const rpc of Object.keys(definition)) {
      impl[rpc] = (call: ServerUnaryCall<Record<string, unknown>, object>, callback: sendUnaryData<object>) => {
        requests.push({ rpc, request: call.request });
        const handler = handlers[rpc];
        if (!handler) {
          callback({ code: status.UNIMPLEMENTED, details: `${rpc} not faked` });
          return;
        }
        Promise.resolve(handler(call.request)).then(
          (r) => ('error' in r ? callback(r.error as { code: number; details: string }) : callback(null, r)),
          (e: unknown) => callback({ code: status.INTERNAL, details: String(e) }),
        );
      };
    }
    server.addService(definition, impl);
  }
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())));
  return { server, requests };
}

const fail = (code: number, details: string) => ({ error: { code, details } });
const isCode = (code: RuntimeError['code'], message?: RegExp) => (e: unknown): boolean =>
  e instanceof RuntimeError && e.code === code && (message === undefined || message.test(e.message));

const sandboxConfig = (extra: Partial<PodSandboxConfig> = {}): PodSandboxConfig => ({
  metadata: { name: 'web', uid: 'u1', namespace: 'default', attempt: 1 },
  hostname: 'web',
  logDirectory: '/var/log/pods/default_web_u1',
  dnsConfig: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
  portMappings: [{ protocol: 'TCP', containerPort: 80, hostPort: 8080 }],
  labels: { app: 'web' },
  annotations: { a: 'b' },
  linux: { cgroupParent: '/kubepods/besteffort/podu1', namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }, sysctls: { 'net.ipv4.ip_unprivileged_port_start': '0' } },
  ...extra,
});

const containerConfig = (extra: Partial<ContainerConfig> = {}): ContainerConfig => ({
  metadata: { name: 'main', attempt: 2 },
  image: 'busybox:1.35',
  command: ['sh', '-c'],
  args: ['echo hi'],
  workingDir: '/tmp',
  envs: [{ key: 'A', value: '1' }],
  mounts: [{ containerPath: '/data', hostPath: '/srv/data', readonly: true }],
  labels: { 'io.kubernetes.container.name': 'main' },
  annotations: {},
  logPath: 'main/2.log',
  stdin: false,
  stdinOnce: false,
  tty: false,
  linux: { resources: { cpuPeriod: 100000, cpuQuota: 50000, cpuShares: 512, memoryLimitInBytes: 67108864, oomScoreAdj: 1000 }, runAsUser: 1000 },
  ...extra,
});

describe('cri runtime (against a fake CRI server)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-cri-fake-'));
  const socket = join(dir, 'cri.sock');
  let server: Server;
  let requests: { rpc: string; request: Record<string, unknown> }[];
  const runtime = newCriRuntime({ endpoint: socket, timeoutMs: 2_000 });
  const rt = runtime.runtime;
  const T = '1764480000123456789'; // nanoseconds beyond 2^53

  let closedPort = 0;

  before(async () => {
    // A loopback port nothing listens on: the streaming URLs the fake hands out.
    closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    ({ server, requests } = await fakeCri(socket, {
      Version: () => ({ version: '0.1.0', runtime_name: 'containerd', runtime_version: '1.6.20~ds1', runtime_api_version: 'v1' }),
      Status: () => ({ status: { conditions: [{ type: 'RuntimeReady', status: true, reason: '', message: '' }, { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni config uninitialized' }] } }),
      UpdateRuntimeConfig: () => ({}),
      RunPodSandbox: () => ({ pod_sandbox_id: 's1' }),
      StopPodSandbox: (r) => (r.pod_sandbox_id === 'gone' ? fail(status.NOT_FOUND, 'sandbox gone not found') : {}),
      RemovePodSandbox: (r) => (r.pod_sandbox_id === 'gone' ? fail(status.NOT_FOUND, 'not found') : {}),
      PodSandboxStatus: (r) =>
        r.pod_sandbox_id === 's1'
          ? { status: { id: 's1', metadata: { name: 'web', uid: 'u1', namespace: 'default', attempt: 1 }, state: 'SANDBOX_READY', created_at: T, network: { ip: '10.244.0.5', additional_ips: [{ ip: 'fd00::5' }] }, labels: { app: 'web' }, annotations: {} } }
          : fail(status.NOT_FOUND, `an error occurred when try to find sandbox "${String(r.pod_sandbox_id)}": not found`),
      ListPodSandbox: () => ({ items: [{ id: 's2', metadata: null, state: 'SANDBOX_NOTREADY', created_at: '2', labels: {}, annotations: {} }, { id: 's1', metadata: { name: 'web', uid: 'u1', namespace: 'default', attempt: 1 }, state: 'SANDBOX_READY', created_at: '1', labels: {}, annotations: {} }] }),
      CreateContainer: () => ({ container_id: 'c1' }),
      StartContainer: (r) => (r.container_id === 'done' ? fail(status.UNKNOWN, 'failed to set starting state for container "done": container is in CONTAINER_EXITED state') : {}),
      StopContainer: (r) => (r.container_id === 'gone' ? fail(status.NOT_FOUND, 'not found') : {}),
      RemoveContainer: () => ({}),
      ListContainers: () => ({ containers: [{ id: 'c1', pod_sandbox_id: 's1', metadata: { name: 'main', attempt: 2 }, image: { image: 'docker.io/library/busybox:1.35' }, image_ref: 'sha256:abc', state: 'CONTAINER_RUNNING', created_at: T, labels: {}, annotations: {} }] }),
      ContainerStatus: (r) =>
        r.container_id === 'c1'
          ? {
              status: {
                id: 'c1', metadata: { name: 'main', attempt: 2 }, state: 'CONTAINER_EXITED', created_at: T, started_at: T, finished_at: T, exit_code: 137,
                image: { image: 'docker.io/library/busybox:1.35' }, image_ref: 'sha256:abc', reason: 'OOMKilled', message: '', labels: {}, annotations: {},
                mounts: [{ container_path: '/data', host_path: '/srv/data', readonly: true }], log_path: '/var/log/pods/x/main/2.log',
              },
            }
          : fail(status.NOT_FOUND, 'not found'),
      ExecSync: (r) =>
        r.timeout === '1' ? fail(status.DEADLINE_EXCEEDED, 'failed to exec in container: timeout 1s exceeded') : { stdout: Buffer.from('out'), stderr: Buffer.from('err'), exit_code: 3 },
      Exec: () => ({ url: `http://127.0.0.1:${closedPort}/exec/abc` }),
      Attach: () => fail(status.NOT_FOUND, 'container not found'),
      PortForward: () => ({ url: `http://127.0.0.1:${closedPort}/portforward/abc` }),
      ListImages: () => ({ images: [{ id: 'sha256:p', repo_tags: ['registry.k8s.io/pause:3.6'], repo_digests: [], size: '700000', uid: { value: '65535' }, username: '', pinned: false }] }),
      ImageStatus: (r) =>
        (r.image as { image: string }).image === 'busybox:1.35'
          ? { image: { id: 'sha256:b', repo_tags: ['docker.io/library/busybox:1.35'], repo_digests: [], size: '2000000', uid: null, username: 'nobody', pinned: true } }
          : { image: null },
      RemoveImage: () => fail(status.NOT_FOUND, 'image not found'),
      ImageFsInfo: () => ({ image_filesystems: [{ timestamp: T, fs_id: { mountpoint: '/var/lib/containerd/snapshots' }, used_bytes: { value: '1024' }, inodes_used: { value: '7' } }] }),
    }));
  });
  after(async () => {
    await runtime.close();
    server.forceShutdown();
    rmSync(dir, { recursive: true, force: true });
  });
  const last = (rpc: string) => [...requests].reverse().find((r) => r.rpc === rpc)?.request;

  it('maps version, status and updateRuntimeConfig', async () => {
    assert.deepEqual(await rt.version(), { runtimeApiVersion: 'v1', runtimeName: 'containerd', runtimeVersion: '1.6.20~ds1' });
    assert.deepEqual((await rt.status()).conditions.map((c) => [c.type, c.status, c.reason]), [['RuntimeReady', true, ''], ['NetworkReady', false, 'NetworkPluginNotReady']]);
    await rt.updateRuntimeConfig({ podCIDR: '10.244.3.0/24' });
    assert.deepEqual(last('UpdateRuntimeConfig'), { runtime_config: { network_config: { pod_cidr: '10.244.3.0/24' } } });
  });

  it('sends the sandbox config field by field, without a hostname for host-network sandboxes', async () => {
    assert.equal(await rt.runPodSandbox(sandboxConfig(), 'runc'), 's1');
    const sent = last('RunPodSandbox') as { config: Record<string, unknown>; runtime_handler: string };
    assert.equal(sent.runtime_handler, 'runc');
    assert.deepEqual(sent.config.metadata, { name: 'web', uid: 'u1', namespace: 'default', attempt: 1 });
    assert.equal(sent.config.hostname, 'web');
    assert.equal(sent.config.log_directory, '/var/log/pods/default_web_u1');
    assert.deepEqual(sent.config.dns_config, { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] });
    assert.deepEqual(sent.config.port_mappings, [{ protocol: 'TCP', container_port: 80, host_port: 8080, host_ip: '' }]);
    assert.deepEqual(sent.config.linux, {
      cgroup_parent: '/kubepods/besteffort/podu1',
      security_context: { namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD', target_id: '' } },
      sysctls: { 'net.ipv4.ip_unprivileged_port_start': '0' },
    });
    await rt.runPodSandbox(sandboxConfig({ linux: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } }));
    assert.equal((last('RunPodSandbox') as { config: { hostname: string } }).config.hostname, '');
  });

  it('reads sandbox status and lists with bigint nanoseconds, oldest first', async () => {
    const s = await rt.podSandboxStatus('s1');
    assert.equal(s.createdAt, 1764480000123456789n);
    assert.deepEqual(s.network, { ip: '10.244.0.5', additionalIps: ['fd00::5'] });
    assert.equal(s.state, 'SANDBOX_READY');
    const list = await rt.listPodSandbox({ state: 'SANDBOX_READY', labelSelector: { app: 'web' } });
    assert.deepEqual(list.map((x) => x.id), ['s1', 's2']);
    assert.deepEqual(list[1]!.metadata, { name: '', uid: '', namespace: '', attempt: 0 });
    assert.deepEqual(last('ListPodSandbox'), { filter: { id: '', state: { state: 'SANDBOX_READY' }, label_selector: { app: 'web' } } });
    await rt.listPodSandbox();
    assert.deepEqual(last('ListPodSandbox'), { filter: null });
  });

  it('sends the container config with resources, user and a PID namespace of its own by default', async () => {
    assert.equal(await rt.createContainer('s1', containerConfig(), sandboxConfig()), 'c1');
    const sent = last('CreateContainer') as { pod_sandbox_id: string; config: Record<string, unknown>; sandbox_config: { hostname: string } };
    assert.equal(sent.pod_sandbox_id, 's1');
    assert.equal(sent.sandbox_config.hostname, 'web');
    assert.deepEqual(sent.config.image, { image: 'busybox:1.35' });
    assert.deepEqual(sent.config.envs, [{ key: 'A', value: '1' }]);
    assert.deepEqual(sent.config.mounts, [{ container_path: '/data', host_path: '/srv/data', readonly: true }]);
    assert.equal(sent.config.working_dir, '/tmp');
    assert.equal(sent.config.log_path, 'main/2.log');
    assert.deepEqual(sent.config.linux, {
      resources: { cpu_period: '100000', cpu_quota: '50000', cpu_shares: '512', memory_limit_in_bytes: '67108864', oom_score_adj: '1000' },
      security_context: { privileged: false, namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD', target_id: '' }, run_as_user: { value: '1000' }, run_as_group: null, readonly_rootfs: false },
    });
    await rt.createContainer('s1', containerConfig({ linux: {} }), sandboxConfig({ linux: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } }));
    const host = last('CreateContainer') as { config: { linux: { security_context: { namespace_options: unknown } } } };
    assert.deepEqual(host.config.linux.security_context.namespace_options, { network: 'NODE', pid: 'CONTAINER', ipc: 'POD', target_id: '' });
  });

  it('reads container status and lists', async () => {
    const s = await rt.containerStatus('c1');
    assert.deepEqual(
      { state: s.state, exitCode: s.exitCode, reason: s.reason, startedAt: s.startedAt, image: s.image, imageRef: s.imageRef, logPath: s.logPath, mounts: s.mounts },
      {
        state: 'CONTAINER_EXITED', exitCode: 137, reason: 'OOMKilled', startedAt: 1764480000123456789n, image: 'docker.io/library/busybox:1.35', imageRef: 'sha256:abc',
        logPath: '/var/log/pods/x/main/2.log', mounts: [{ containerPath: '/data', hostPath: '/srv/data', readonly: true }],
      },
    );
    const [c] = await rt.listContainers({ podSandboxId: 's1', state: 'CONTAINER_RUNNING' });
    assert.deepEqual([c?.id, c?.podSandboxId, c?.image, c?.createdAt], ['c1', 's1', 'docker.io/library/busybox:1.35', 1764480000123456789n]);
    assert.deepEqual(last('ListContainers'), { filter: { id: '', state: { state: 'CONTAINER_RUNNING' }, pod_sandbox_id: 's1', label_selector: {} } });
  });

  it('maps NOT_FOUND to NotFound, except from stop and remove, which are idempotent', async () => {
    await assert.rejects(rt.podSandboxStatus('nope'), isCode('NotFound', /PodSandboxStatus: an error occurred when try to find sandbox "nope"/));
    await assert.rejects(rt.containerStatus('nope'), isCode('NotFound'));
    await assert.rejects(rt.attach({ containerId: 'nope', stdin: false, stdout: true, stderr: true, tty: false }), isCode('NotFound'));
    await rt.stopPodSandbox('gone');
    await rt.removePodSandbox('gone');
    await rt.stopContainer('gone', 1);
    await runtime.images.removeImage('absent:1');
  });

  it('turns a refused start into InvalidArgument', async () => {
    await assert.rejects(rt.startContainer('done'), isCode('InvalidArgument', /CONTAINER_EXITED/));
  });

  it('runs execSync, and maps its timeout to DeadlineExceeded', async () => {
    const r = await rt.execSync('c1', ['cat', '/etc/hostname'], 5);
    assert.deepEqual([r.stdout.toString(), r.stderr.toString(), r.exitCode], ['out', 'err', 3]);
    assert.deepEqual(last('ExecSync'), { container_id: 'c1', cmd: ['cat', '/etc/hostname'], timeout: '5' });
    await assert.rejects(rt.execSync('c1', ['sleep', '9'], 1), isCode('DeadlineExceeded', /timeout 1s exceeded/));
  });

  it('fails exec and port-forward with Unknown, naming the URL, when the streaming server cannot be reached', async () => {
    await assert.rejects(
      rt.exec({ containerId: 'c1', cmd: ['sh'], stdin: true, stdout: true, stderr: true, tty: true }),
      isCode('Unknown', new RegExp(`^exec: containerd's streaming server at http://127\\.0\\.0\\.1:${closedPort}/exec/abc: .*ECONNREFUSED`)),
    );
    assert.equal((last('Exec') as { stderr: boolean }).stderr, false, 'a tty merges stderr');
    await assert.rejects(rt.portForward('s1', 8080), isCode('Unknown', /^port-forward: .*ECONNREFUSED/));
    assert.deepEqual((last('PortForward') as { port: number[] }).port, [8080]);
  });

  it('maps images: absent is undefined, uid and username, sizes, fs info', async () => {
    assert.equal(await runtime.images.imageStatus('nginx'), undefined);
    assert.deepEqual(await runtime.images.imageStatus('busybox:1.35'), { id: 'sha256:b', repoTags: ['docker.io/library/busybox:1.35'], repoDigests: [], size: 2000000, username: 'nobody', pinned: true });
    assert.deepEqual(await runtime.images.listImages(), [{ id: 'sha256:p', repoTags: ['registry.k8s.io/pause:3.6'], repoDigests: [], size: 700000, uid: 65535, pinned: false }]);
    assert.deepEqual(await runtime.images.imageFsInfo(), [{ mountpoint: '/var/lib/containerd/snapshots', usedBytes: 1024, inodesUsed: 7 }]);
  });

  it('answers UNIMPLEMENTED methods with Unknown', async () => {
    // The fake leaves nothing unimplemented that the runtime calls, so check the mapping table itself.
    assert.equal(runtimeErrorCode(status.UNIMPLEMENTED), 'Unknown');
    assert.equal(runtimeErrorCode(status.INVALID_ARGUMENT), 'InvalidArgument');
    assert.equal(runtimeErrorCode(status.UNAVAILABLE), 'Unavailable');
  });
});

describe('cri runtime without a server', () => {
  it('fails with Unavailable when nothing listens on the socket', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-cri-none-'));
    const runtime = newCriRuntime({ endpoint: `unix://${join(dir, 'none.sock')}`, timeoutMs: 2_000 });
    try {
      await assert.rejects(runtime.runtime.version(), isCode('Unavailable'));
    } finally {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with DeadlineExceeded when the server does not answer in time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-cri-slow-'));
    const socket = join(dir, 'slow.sock');
    const { server } = await fakeCri(socket, { Version: () => new Promise(() => undefined) });
    const runtime = newCriRuntime({ endpoint: socket, timeoutMs: 100 });
    try {
      await assert.rejects(runtime.runtime.version(), isCode('DeadlineExceeded'));
    } finally {
      await runtime.close();
      server.forceShutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts unix:// endpoints and absolute paths, and rejects anything else', () => {
    assert.equal(grpcTarget('/run/containerd/containerd.sock'), 'unix:///run/containerd/containerd.sock');
    assert.equal(grpcTarget('unix:///x.sock'), 'unix:///x.sock');
    assert.throws(() => grpcTarget('tcp://127.0.0.1:1'), isCode('InvalidArgument'));
    assert.throws(() => newCriRuntime({ endpoint: 'relative.sock' }), isCode('InvalidArgument'));
  });
});
