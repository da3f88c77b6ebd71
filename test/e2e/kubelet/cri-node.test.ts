/**
 * The kubelet on a real containerd (the cri runtime), as a user meets it with
 * real kubectl: a `k8ts server` with no node of its own (upstream's address
 * ranges, 10.244.0.0/16 for pods and 10.96.0.0/12 for services, DESIGN §5)
 * and one worker node in a network namespace of its own (containerd, its CNI
 * bridge and the kubelet; testing/cri-node.ts). Pods get addresses on the
 * bridge and probes reach them there; kubectl's logs, exec, attach and
 * port-forward go API server → kubelet → containerd's streaming server. Then
 * the node's bad days: a crash loop, a stopped API server, a kubelet killed
 * with SIGKILL. Containers write what the test must see into a hostPath
 * directory, so that no API call is needed while the API server is stopped.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import type { ResourceClient } from '../../../src/client/rest/interface.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { PODS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { newCriRuntime } from '../../../src/kubelet/runtime/cri/cri-runtime.js';
import type { Pod } from '../../../src/kubelet/types.js';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { containerdUnavailableReason } from '../testing/containerd.js';
import { newKubectl, withStdin, type Kubectl, type KubectlVersion } from '../testing/kubectl.js';
import { startCriNode, type CriNode } from './testing/cri-node.js';
import { componentPid } from './testing/node-processes.js';

const skip = await containerdUnavailableReason();
const NODE = 'cri-node-1';
/** The kubelet's node status period (--node-status-update-frequency) in this file. */
const STATUS_PERIOD_MS = 1000;

const mainStatus = (pod: Pod | undefined): ContainerStatus | undefined => pod?.status?.containerStatuses?.find((s) => s.name === 'main');

/** How many lines a file has (0 while it does not exist). */
async function lineCount(path: string): Promise<number> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

describe('a kubelet on containerd, through kubectl', { timeout: 300_000, ...(skip !== undefined ? { skip } : {}) }, () => {
  let cluster: TestCluster;
  let node: CriNode;
  let kubectl: Kubectl;
  let client: HttpClient;
  let pods: ResourceClient<Pod>;
  /** A directory of the machine mounted into test pods at /shared (hostPath). */
  let shared: string;

  const field = async (what: string, path: string): Promise<string> => {
    const r = await kubectl('get', ...what.split(' '), '-o', `jsonpath={${path}}`);
    return r.code === 0 ? r.stdout.trim() : '';
  };
  const until = (description: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> =>
    waitFor(check, { timeoutMs, intervalMs: 200, description }).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}; the kubelet's output ends:\n${node?.kubelet().output().split('\n').slice(-15).join('\n')}`);
    });
  const apply = (object: unknown): Promise<string> => withStdin(kubectl, cluster.kubeconfig, JSON.stringify(object)).ok('apply', '-f', '-');
  const get = async (name: string): Promise<Pod | undefined> => {
    try {
      return await pods.get(name, { namespace: 'default' });
    } catch (e: unknown) {
      if ((e as { code?: number }).code === 404) return undefined;
      throw e;
    }
  };
  const running = async (name: string): Promise<boolean> => mainStatus(await get(name))?.state?.running !== undefined;
  const remove = async (...names: string[]): Promise<void> => {
    for (const name of names) await pods.delete(name, { namespace: 'default', gracePeriodSeconds: 0 }).catch(() => undefined);
  };
  /** A pod of one busybox container `main` running `script`, with the shared directory at /shared. */
  const shellPod = (name: string, script: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 1,
      volumes: [{ name: 'shared', hostPath: { path: shared, type: 'Directory' } }],
      containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', script], volumeMounts: [{ name: 'shared', mountPath: '/shared' }], ...container }],
      ...spec,
    },
  });

  before(async () => {
    cluster = await startCluster('kubelet-cri', { serverArgs: ['--cluster-cidr', '10.244.0.0/16', '--service-cluster-ip-range', '10.96.0.0/12'] });
    kubectl = newKubectl('1.33', cluster.kubeconfig);
    client = newHttpClient(restConfigFromKubeconfig(cluster.kubeconfig));
    pods = client.resource<Pod>(PODS);
    shared = join(cluster.workDir, 'shared');
    await mkdir(shared, { recursive: true });
    const manifests = join(cluster.workDir, 'node-manifests');
    await mkdir(manifests, { recursive: true });
    await writeFile(
      join(manifests, 'static-web.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: static-web\n  namespace: kube-system\nspec:\n  containers:\n  - name: main\n    image: busybox:1.35\n    command: [sleep, "3600"]\n',
    );
    const apiServerPort = Number(new URL(restConfigFromKubeconfig(cluster.kubeconfig).server).port);
    node = await startCriNode({
      serverDataDir: join(cluster.workDir, 'data'),
      apiServerPort,
      nodeName: NODE,
      podManifestPath: manifests,
      kubeletArgs: [
        `--node-status-update-frequency=${STATUS_PERIOD_MS}ms`,
        '--sync-frequency=1s',
        '--file-check-frequency=500ms',
        '--crash-loop-backoff-initial=1s',
        '--crash-loop-backoff-max=4s',
      ],
    });
  });
  after(async () => {
    client?.close();
    try {
      await node?.stop();
    } finally {
      await cluster?.stop();
    }
  });

  it('registers the node, Ready, with containerd as its runtime and a pod CIDR on the bridge', async () => {
    await until('a Ready node', async () => (await field(`node ${NODE}`, '.status.conditions[?(@.type=="Ready")].status')) === 'True', 90_000);
    assert.match(await field(`node ${NODE}`, '.status.nodeInfo.containerRuntimeVersion'), /^containerd:\/\//);
    assert.match(await field(`node ${NODE}`, '.spec.podCIDR'), /^10\.244\.\d+\.0\/24$/);
    assert.equal(await field(`node ${NODE}`, '.status.addresses[?(@.type=="InternalIP")].address'), node.nodeIP);
  });

  it('runs a static pod from its manifest directory and shows it on a mirror pod', async () => {
    const mirror = `static-web-${NODE}`;
    await until('the mirror pod Running', async () => (await field(`pod ${mirror} -n kube-system`, '.status.phase')) === 'Running');
    assert.match(await field(`pod ${mirror} -n kube-system`, '.status.containerStatuses[0].containerID'), /^containerd:\/\//);
    assert.notEqual(await field(`pod ${mirror} -n kube-system`, '.metadata.annotations.kubernetes\\.io/config\\.mirror'), '');
  });

  it('runs a pod on the bridge: Running with a 10.244 address, logs, exec with its exit code', async () => {
    await kubectl.ok('run', 'hello', '--image=busybox:1.35', '--restart=Never', '--', 'sh', '-c', 'echo hello from containerd; sleep 3600');
    await kubectl.ok('wait', '--for=condition=Ready', 'pod/hello', '--timeout=90s');
    const podCIDR = await field(`node ${NODE}`, '.spec.podCIDR');
    const podIP = await field('pod hello', '.status.podIP');
    assert.equal(podIP.split('.').slice(0, 3).join('.'), podCIDR.split('.').slice(0, 3).join('.'), `${podIP} in ${podCIDR}`);
    assert.equal(await field('pod hello', '.status.hostIP'), node.nodeIP);
    assert.match(await field('pod hello', '.status.containerStatuses[0].containerID'), /^containerd:\/\//);
    assert.match(await field('pod hello', '.status.containerStatuses[0].imageID'), /sha256:[0-9a-f]{64}/);
    await until("the pod's log line", async () => (await kubectl('logs', 'hello')).stdout.includes('hello from containerd'));
    const exec = await kubectl('exec', 'hello', '--', 'sh', '-c', 'echo "out $(hostname)"; exit 3');
    assert.equal(exec.code, 3, exec.stderr);
    assert.equal(exec.stdout, 'out hello\n');
  });

  it('probes over the pod network: httpGet readiness decides the endpoints; a failing liveness probe restarts and counts', async () => {
    const script = 'mkdir -p /www && echo ok > /www/healthz && exec httpd -f -p 8080 -h /www';
    const web = shellPod('web', script, {}, { readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1 } });
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
    await apply({ apiVersion: 'v1', kind: 'List', items: [web, service] });
    await until('the web pod in its endpoints as ready', async () => (await field('endpoints web', '.subsets[0].addresses[0].ip')) !== '');
    assert.equal(await field('endpoints web', '.subsets[0].addresses[0].ip'), await field('pod web', '.status.podIP'));
    await kubectl.ok('exec', 'web', '--', 'rm', '/www/healthz');
    await until('the web pod listed as not ready', async () => (await field('endpoints web', '.subsets[0].notReadyAddresses[0].ip')) !== '');
    assert.equal(await field('pod web', '.status.containerStatuses[0].restartCount'), '0', 'readiness never restarts');

    await apply(shellPod('unhealthy', 'exec sleep 3600', {}, { livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1, failureThreshold: 1 } }));
    await until('a restart', async () => (mainStatus(await get('unhealthy'))?.restartCount ?? 0) >= 1, 90_000);
    assert.match(await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.name=unhealthy'), /Liveness probe failed/);
    await remove('web', 'unhealthy');
  });

  it('holds off the liveness probe until the startup probe succeeds', async () => {
    const flag = join(shared, 'slow-started');
    const pod = shellPod('slow', 'exec sleep 3600', {}, {
      startupProbe: { exec: { command: ['test', '-e', '/shared/slow-started'] }, periodSeconds: 1, failureThreshold: 600 },
      livenessProbe: { exec: { command: ['sh', '-c', 'exit 1'] }, periodSeconds: 1, failureThreshold: 1 },
    });
    await apply(pod);
    const startupFailures = async (): Promise<number> =>
      (await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.name=slow,reason=Unhealthy', '-o', 'jsonpath={range .items[*]}{.message}:{.count}{"\\n"}{end}'))
        .split('\n')
        .filter((l) => l.startsWith('Startup probe failed'))
        .reduce((n, l) => n + Number(l.split(':').at(-1) || '1'), 0);
    await until('three startup probe failures', async () => (await startupFailures()) >= 3);
    let status = mainStatus(await get('slow'));
    assert.equal(status?.restartCount, 0, 'no liveness restart while the startup probe has not succeeded');
    assert.equal(status?.started, false);
    assert.doesNotMatch(await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.name=slow'), /Liveness probe failed/);
    await writeFile(flag, '');
    await until('the liveness restart once started', async () => (mainStatus(await get('slow'))?.restartCount ?? 0) >= 1, 90_000);
    status = mainStatus(await get('slow'));
    assert.ok((status?.restartCount ?? 0) >= 1);
    await remove('slow');
  });

  it('deletes a pod gracefully: SIGTERM reaches the container, and the API object goes once it stopped', async () => {
    const log = join(shared, 'graceful.log');
    const script = "trap 'echo got TERM >> /shared/graceful.log; exit 0' TERM; echo started >> /shared/graceful.log; while true; do sleep 0.2; done";
    await apply(shellPod('graceful', script, { terminationGracePeriodSeconds: 30 }));
    await until('graceful running', async () => (await lineCount(log)) >= 1 && (await running('graceful')));
    await kubectl.ok('delete', 'pod', 'graceful', '--timeout=60s');
    assert.equal((await kubectl('get', 'pod', 'graceful')).code, 1);
    // The trap ran: the container ended on SIGTERM (a SIGKILL at the end of the grace period leaves no line).
    assert.equal(await readFile(log, 'utf8'), 'started\ngot TERM\n');
  });

  for (const version of ['1.33', '1.27'] as const satisfies readonly KubectlVersion[]) {
    it(`kubectl ${version} port-forward and attach go through containerd's streaming server`, async () => {
      const name = `stream-${version.replace('.', '-')}`;
      await apply(shellPod(name, `mkdir -p /www && echo hello from ${name} > /www/index.html && httpd -p 8080 -h /www && i=0; while true; do i=$((i+1)); echo line $i; sleep 0.2; done`));
      await until(`${name} running`, () => running(name));
      const k = newKubectl(version, cluster.kubeconfig);
      const forward = spawn(k.binary, ['port-forward', `pod/${name}`, ':8080'], { env: k.env, stdio: ['ignore', 'pipe', 'pipe'] });
      const attach = spawn(k.binary, ['attach', name, '-c', 'main'], { env: k.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let forwarded = '';
      let attached = '';
      forward.stdout.on('data', (c: Buffer) => (forwarded += c.toString()));
      forward.stderr.on('data', (c: Buffer) => (forwarded += c.toString()));
      attach.stdout.on('data', (c: Buffer) => (attached += c.toString()));
      attach.stderr.on('data', (c: Buffer) => (attached += c.toString()));
      try {
        await until(`port-forward to start (${forwarded})`, () => /Forwarding from 127\.0\.0\.1:(\d+)/.test(forwarded) || forward.exitCode !== null, 30_000);
        const localPort = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(forwarded)?.[1]);
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(localPort, '127.0.0.1', () => socket.write('GET / HTTP/1.0\r\n\r\n'));
          let text = '';
          socket.on('data', (c: Buffer) => (text += c.toString()));
          socket.on('end', () => resolve(text));
          socket.on('error', reject);
        });
        assert.match(answer, new RegExp(`^HTTP/1\\.[01] 200 OK[^]*\\r\\n\\r\\nhello from ${name}\\n$`), forwarded);
        await until(`two lines through attach (${attached})`, () => /line \d+\n[^]*line \d+\n/.test(attached) || attach.exitCode !== null, 30_000);
        const numbers = [...attached.matchAll(/^line (\d+)$/gm)].map((m) => Number(m[1]));
        assert.ok(numbers.length >= 2, attached);
        for (let i = 1; i < numbers.length; i++) assert.equal(numbers[i], numbers[i - 1]! + 1, 'consecutive lines, none lost');
      } finally {
        forward.kill('SIGTERM');
        attach.kill('SIGTERM');
        await remove(name);
      }
    });
  }

  it('restarts a crashing container with a growing CrashLoopBackOff', async () => {
    await apply(shellPod('crashloop', 'echo crashing; exit 1'));
    const messages: string[] = [];
    await until('a back-off of 4s after shorter ones', async () => {
      const waiting = mainStatus(await get('crashloop'))?.state?.waiting;
      if (waiting?.reason === 'CrashLoopBackOff' && messages.at(-1) !== waiting.message) messages.push(waiting.message ?? '');
      return messages.some((m) => m.startsWith('back-off 4s')) && messages.some((m) => /^back-off [12]s/.test(m));
    }, 90_000);
    for (const m of messages) assert.match(m, /^back-off \d+s restarting failed container=main pod=crashloop_default\(/);
    assert.ok((mainStatus(await get('crashloop'))?.restartCount ?? 0) >= 3);
    await remove('crashloop');
  });

  it('keeps running and restarting containers while the API server is stopped, and the API catches up after SIGCONT', async () => {
    const crashes = join(shared, 'crashes.log');
    await apply(shellPod('steady', 'exec sleep 3600'));
    await apply(shellPod('crasher', 'echo crashed >> /shared/crashes.log; exit 1'));
    await until('steady running', () => running('steady'));
    await until('the crasher restarted once', async () => (mainStatus(await get('crasher'))?.restartCount ?? 0) >= 1);
    const steadyBefore = mainStatus(await get('steady'))!;
    const cri = newCriRuntime({ endpoint: node.containerd.endpoint, timeoutMs: 10_000 });
    const apiserver = componentPid(cluster.server, 'apiserver');
    let crashesAtCont = 0;
    try {
      process.kill(apiserver, 'SIGSTOP');
      try {
        const stoppedAt = Date.now();
        const crashesAtStop = await lineCount(crashes);
        // No API call while it is stopped: containerd and the shared directory tell what the kubelet does.
        await until('three more crashes, over more than three status periods, with the API server stopped', async () => Date.now() - stoppedAt > 3 * STATUS_PERIOD_MS && (await lineCount(crashes)) >= crashesAtStop + 3);
        const steadyNow = await cri.runtime.containerStatus(steadyBefore.containerID!.replace('containerd://', ''));
        assert.equal(steadyNow.state, 'CONTAINER_RUNNING', 'the steady container still runs');
        crashesAtCont = await lineCount(crashes);
      } finally {
        process.kill(apiserver, 'SIGCONT');
      }
    } finally {
      await cri.close();
    }
    await until(`the crasher's restartCount to reach ${crashesAtCont - 1} in the API`, async () => (mainStatus(await get('crasher'))?.restartCount ?? 0) >= crashesAtCont - 1);
    const steadyAfter = mainStatus(await get('steady'))!;
    assert.equal(steadyAfter.containerID, steadyBefore.containerID, 'the same steady container');
    assert.equal(steadyAfter.restartCount, 0);
    await remove('steady', 'crasher');
  });

  it('adopts its running containers when killed with SIGKILL and started again', async () => {
    const starts = join(shared, 'survivor-starts.log');
    await apply(shellPod('survivor', 'echo started >> /shared/survivor-starts.log; exec sleep 3600'));
    await apply(shellPod('restarted-once', 'if [ -e /shared/restarted-once.marker ]; then exec sleep 3600; fi; touch /shared/restarted-once.marker; exit 1'));
    await until('the survivor running', () => running('survivor'));
    await until('restarted-once running after one restart', async () => {
      const status = mainStatus(await get('restarted-once'));
      return status?.restartCount === 1 && status.state?.running !== undefined;
    });
    const before = { survivor: mainStatus(await get('survivor'))!, restartedOnce: mainStatus(await get('restarted-once'))! };
    const old = node.kubelet();
    old.child.kill('SIGKILL');
    await old.stop();
    node.startKubelet();
    await apply(shellPod('after-restart', 'exec sleep 3600'));
    await until('a pod made after the restart running', () => running('after-restart'));
    assert.equal(await kubectl.ok('exec', 'survivor', '--', 'cat', '/shared/survivor-starts.log'), 'started\n', 'the survivor was started once');
    const afterRestart = { survivor: mainStatus(await get('survivor'))!, restartedOnce: mainStatus(await get('restarted-once'))! };
    assert.equal(afterRestart.survivor.containerID, before.survivor.containerID);
    assert.equal(afterRestart.survivor.restartCount, 0);
    assert.equal(afterRestart.survivor.state?.running?.startedAt, before.survivor.state?.running?.startedAt);
    assert.equal(afterRestart.restartedOnce.containerID, before.restartedOnce.containerID);
    assert.equal(afterRestart.restartedOnce.restartCount, 1);
    assert.equal(await lineCount(starts), 1);
    await remove('survivor', 'restarted-once', 'after-restart');
  });
});
