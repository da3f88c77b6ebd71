/**
 * The cri runtime end to end, on one cluster: a `k8ts server` with no node of
 * its own (upstream's ranges: pods in 10.244.0.0/16, Services in
 * 10.96.0.0/12, DESIGN §5) and one worker node on a real containerd inside a
 * network namespace the test creates (../kubelet/testing/cri-node.ts): its
 * kubelet, its pods on a CNI bridge, and `k8ts proxy --proxy-mode iptables`,
 * whose rules route the Service's cluster IP. Requests to the Service are sent
 * from inside that namespace.
 *
 * - The journey of issue 10 (steps 1–6, 8 and 9 of journey-process.test.ts;
 *   testing/journey-steps.ts) with examples/hello.yaml: httpGet startup,
 *   readiness and liveness probes over the pod network, a deleted pod
 *   replaced, the API server stopped (SIGSTOP) while the pods keep serving.
 * - What only a node on containerd shows (formerly kubelet/cri-node.test.ts):
 *   the node's runtime and pod CIDR, a static pod and its mirror, a pod's
 *   address on the bridge, logs and exec; the Service's name resolved from
 *   inside a pod through its resolv.conf (the cluster DNS runs on the node as
 *   upstream's node-local DNS does); a crash loop's growing back-off,
 *   and its restarts going on while the API server is stopped (during step
 *   6); exec startup probes holding off a tcpSocket liveness probe; a graceful
 *   delete; kubectl 1.33 (WebSocket) and 1.27 (SPDY) port-forward and attach
 *   through containerd's streaming server; a kubelet killed with SIGKILL
 *   adopting its running containers (last: it restarts the kubelet).
 *
 * Busybox pods write what the test must see into a hostPath directory, so that
 * no API call is needed while the API server is stopped. No test pod's name
 * contains "hello" (step 9 checks that nothing of hello is left). Skipped, with
 * the reason, only where containerd cannot run (no root, cgroups, overlayfs or
 * network namespaces).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
import type { Pod } from '../../../src/kubelet/types.js';
import { containerdUnavailableReason, startPrivateContainerd } from '../testing/containerd.js';
import { newKubectl, withStdin, type Kubectl, type KubectlVersion } from '../testing/kubectl.js';
import { startCriNode, type CriNode } from '../kubelet/testing/cri-node.js';
import { writeHelloCopy } from './testing/hello-manifest.js';
import { KUBELET_TIMERS, startJourneyServer, STATUS_PERIOD_MS, type JourneyServer } from './testing/journey-cluster.js';
import { Journey } from './testing/journey-steps.js';
import { startKubectlWatch, type ObservedEvent } from './testing/kubectl-watch.js';
import { netnsServiceClient, type ServiceClient } from './testing/service-client.js';

const skip = await containerdUnavailableReason();
const NODE = 'journey-cri';
export const CRI_CLUSTER_ARGS = ['--cluster-cidr', '10.244.0.0/16', '--service-cluster-ip-range', '10.96.0.0/12'];
/**
 * The node lifecycle controller's grace here: longer than the outage of step 6 (which waits for a crash-looping
 * container's restarts too), so that the controller, resumed with a stale view of the node's Lease, never calls the
 * node Unknown. Nothing in this file waits for a node to go NotReady.
 */
const NODE_MONITOR_GRACE = '30s';
/**
 * The cluster DNS's address on the node: upstream's node-local DNS address (NodeLocal DNSCache's 169.254.20.10). The
 * node runs `k8ts dns` on it, in its namespace, and its kubelet's --cluster-dns names it (../kubelet/testing/cri-node.ts
 * says why this is upstream's node-local layout rather than a kube-dns Service routed by the proxy).
 */
const NODE_LOCAL_DNS = '169.254.20.10';
/** --crash-loop-backoff-max of KUBELET_TIMERS (its --crash-loop-backoff-initial is 1s). */
const BACKOFF_MAX = '2s';

const mainStatus = (pod: Pod | undefined): ContainerStatus | undefined => pod?.status?.containerStatuses?.find((s) => s.name === 'main');

/** How many lines a file has (0 while it does not exist). */
async function lineCount(path: string): Promise<number> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

describe('the cri runtime (containerd in a network namespace): the journey and the node', { timeout: 300_000, ...(skip !== undefined ? { skip } : {}) }, () => {
  let server: JourneyServer;
  let node: CriNode;
  let kubectl: Kubectl;
  let client: ServiceClient;
  let journey: Journey;
  let http: HttpClient;
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
  const apply = (object: unknown): Promise<string> => withStdin(kubectl, server.kubeconfig, JSON.stringify(object)).ok('apply', '-f', '-');
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
    // containerd and its images (the slow part) come up while the server starts.
    const [started, containerd] = await Promise.allSettled([
      startJourneyServer({ name: 'cri', agent: false, extraArgs: [...CRI_CLUSTER_ARGS, '--node-monitor-grace-period', NODE_MONITOR_GRACE] }),
      // The kubelet puts pods under /kubepods (cgroupfs); pods still there at the end leave their cgroups, removed at stop.
      startPrivateContainerd({ images: ['busybox', 'pause', 'hello'], cgroupParents: ['/kubepods'] }),
    ]);
    if (started.status === 'fulfilled') server = started.value;
    if (started.status === 'rejected' || containerd.status === 'rejected') {
      if (containerd.status === 'fulfilled') await containerd.value.stop();
      throw started.status === 'rejected' ? started.reason : (containerd as PromiseRejectedResult).reason;
    }
    shared = join(server.root, 'shared');
    await mkdir(shared, { recursive: true });
    const manifests = join(server.root, 'node-manifests');
    await mkdir(manifests, { recursive: true });
    await writeFile(
      join(manifests, 'static-web.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: static-web\n  namespace: kube-system\nspec:\n  containers:\n  - name: main\n    image: busybox:1.35\n    command: [sleep, "3600"]\n',
    );
    node = await startCriNode({
      serverDataDir: server.dataDir,
      apiServerPort: server.apiServerPort,
      nodeName: NODE,
      containerd: containerd.value,
      podManifestPath: manifests,
      kubeletArgs: [...KUBELET_TIMERS, '--file-check-frequency=500ms'],
      serviceClusterIPRange: '10.96.0.0/12',
      proxyArgs: ['--proxy-mode', 'iptables', '--cluster-cidr', '10.244.0.0/16', '--min-sync-period=100ms'],
      nodeLocalDns: { address: NODE_LOCAL_DNS },
    });
    kubectl = newKubectl('1.32', server.kubeconfig);
    http = newHttpClient(restConfigFromKubeconfig(server.kubeconfig));
    pods = http.resource<Pod>(PODS);
    await kubectl.ok('wait', '--for=create', `node/${NODE}`, '--timeout=90s');
    await kubectl.ok('wait', '--for=condition=Ready', `node/${NODE}`, '--timeout=90s');
    await kubectl.ok('wait', '--for=create', 'serviceaccount/default', '--timeout=60s');
    const manifest = join(server.root, 'hello.yaml');
    const names = await writeHelloCopy({ path: manifest });
    client = netnsServiceClient(node.netns);
    journey = new Journey({ kubectl, manifest, ...names, auditLog: server.auditLog, client, print: (line) => console.log(line) });
    await journey.watch();
  });

  after(async () => {
    await journey?.stop();
    client?.close();
    http?.close();
    try {
      await node?.stop();
    } finally {
      await server?.stop();
    }
  });

  it('registers the node, Ready, with containerd as its runtime and a pod CIDR on the bridge', async () => {
    assert.equal(await field(`node ${NODE}`, '.status.conditions[?(@.type=="Ready")].status'), 'True');
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

  it('1. kubectl apply: created → scheduled → running → ready → in endpoints, in that order', async () => {
    await journey.apply({ nodes: [NODE], timeoutMs: 90_000 });
  });

  it('2. requests to the Service (iptables rules, from inside the node) are answered by all 3 pods', () => journey.serviceAnsweredByAll());

  it('runs a pod on the bridge: Running with a 10.244 address, logs, exec with its exit code', async () => {
    await kubectl.ok('run', 'bridge-pod', '--image=busybox:1.35', '--restart=Never', '--', 'sh', '-c', 'echo on the bridge; sleep 3600');
    await kubectl.ok('wait', '--for=condition=Ready', 'pod/bridge-pod', '--timeout=90s');
    const podCIDR = await field(`node ${NODE}`, '.spec.podCIDR');
    const podIP = await field('pod bridge-pod', '.status.podIP');
    assert.equal(podIP.split('.').slice(0, 3).join('.'), podCIDR.split('.').slice(0, 3).join('.'), `${podIP} in ${podCIDR}`);
    assert.equal(await field('pod bridge-pod', '.status.hostIP'), node.nodeIP);
    assert.match(await field('pod bridge-pod', '.status.containerStatuses[0].containerID'), /^containerd:\/\//);
    assert.match(await field('pod bridge-pod', '.status.containerStatuses[0].imageID'), /sha256:[0-9a-f]{64}/);
    await until("the pod's log line", async () => (await kubectl('logs', 'bridge-pod')).stdout.includes('on the bridge'));
    const exec = await kubectl('exec', 'bridge-pod', '--', 'sh', '-c', 'echo "out $(hostname)"; exit 3');
    assert.equal(exec.code, 3, exec.stderr);
    assert.equal(exec.stdout, 'out bridge-pod\n');
  });

  it("puts the pod's sandbox and containers in its QoS cgroup (cgroupfs: /kubepods/besteffort/pod<uid>)", async () => {
    const uid = await field('pod bridge-pod', '.metadata.uid');
    assert.equal(await field('pod bridge-pod', '.status.qosClass'), 'BestEffort');
    const containerID = (await field('pod bridge-pod', '.status.containerStatuses[0].containerID')).replace(/^containerd:\/\//, '');
    // cgroup v1 here (v2: the unified hierarchy at /sys/fs/cgroup itself).
    const hierarchy = existsSync('/sys/fs/cgroup/memory') ? '/sys/fs/cgroup/memory' : '/sys/fs/cgroup';
    const podCgroup = join(hierarchy, 'kubepods', 'besteffort', `pod${uid}`);
    assert.ok(existsSync(join(podCgroup, containerID)), `${podCgroup}/${containerID}`);
  });

  it("reports what a container wrote to /dev/termination-log (the kubelet's bind mount), else its last log lines with FallbackToLogsOnError", async () => {
    await apply(shellPod('farewell', 'echo bye > /dev/termination-log; exit 3', { restartPolicy: 'Never' }));
    // One stream: lines on stdout and stderr come through two pipes, in no fixed order.
    await apply(shellPod('last-words', 'echo first >&2; echo second >&2; exit 2', { restartPolicy: 'Never' }, { terminationMessagePolicy: 'FallbackToLogsOnError' }));
    const terminated = async (name: string) => mainStatus(await get(name))?.state?.terminated;
    await until('both containers terminated', async () => (await terminated('farewell')) !== undefined && (await terminated('last-words')) !== undefined);
    const farewell = (await terminated('farewell'))!;
    assert.equal(farewell.exitCode, 3);
    assert.equal(farewell.message, 'bye\n');
    assert.equal((await terminated('last-words'))!.message, 'first\nsecond\n');
    await remove('farewell', 'last-words');
  });

  it('resolves the Service name from inside the pod, through its resolv.conf, at the node-local cluster DNS', async () => {
    // The kubelet wrote the sandbox's DNS config (dnsPolicy ClusterFirst): the cluster DNS, the search path, ndots:5.
    const resolvConf = await kubectl.ok('exec', 'bridge-pod', '--', 'cat', '/etc/resolv.conf');
    assert.match(resolvConf, new RegExp(`^nameserver ${NODE_LOCAL_DNS.replaceAll('.', '\\.')}$`, 'm'), resolvConf);
    assert.match(resolvConf, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\b/m, resolvConf);
    assert.match(resolvConf, /^options ndots:5$/m, resolvConf);
    // busybox's nslookup asks the first nameserver of /etc/resolv.conf, over the pod's network.
    const lookup = (name: string) => kubectl('exec', 'bridge-pod', '--', 'nslookup', '-type=a', name);
    const found = await lookup(`${journey.options.service}.default.svc.cluster.local`);
    assert.equal(found.code, 0, `${found.stdout}${found.stderr}`);
    assert.match(found.stdout, new RegExp(`^Server:\\s+${NODE_LOCAL_DNS.replaceAll('.', '\\.')}$`, 'm'), found.stdout);
    assert.match(found.stdout, new RegExp(`^Address:\\s+${journey.clusterIP.replaceAll('.', '\\.')}$`, 'm'), found.stdout);
    const missing = await lookup('no-such-service.default.svc.cluster.local');
    assert.notEqual(missing.code, 0);
    assert.match(`${missing.stdout}${missing.stderr}`, /NXDOMAIN/);
    const uid = await field('pod bridge-pod', '.metadata.uid');
    await remove('bridge-pod');
    // containerd leaves the pod's cgroup behind; the kubelet removes it once the pod is gone.
    const hierarchy = existsSync('/sys/fs/cgroup/memory') ? '/sys/fs/cgroup/memory' : '/sys/fs/cgroup';
    await until("the pod's cgroup removed", () => !existsSync(join(hierarchy, 'kubepods', 'besteffort', `pod${uid}`)));
  });

  it('3. kubectl delete pod: a replacement becomes Ready, never fewer than 2 Ready', () => journey.deleteOnePod());

  it('4. a pod whose readiness fails leaves the endpoints and gets no traffic, is not restarted, and comes back', () => journey.readinessFlip());

  it('5. a pod whose liveness fails is restarted: RESTARTS counts up', () => journey.livenessFlip());

  it('restarts a crashing container with a growing CrashLoopBackOff', async () => {
    // The crasher stays for step 6, which watches it restart while the API server is stopped.
    // The back-off starts at --crash-loop-backoff-initial (1s) and doubles: a message at the maximum (2s) shows it grew.
    // A watch sees every status the kubelet writes (a poll can miss a wait of 2 s on a loaded machine).
    const watch = startKubectlWatch<Pod>(kubectl, 'pods', { selector: 'app=crasher' });
    try {
      await apply(shellPod('crasher', 'echo crashed >> /shared/crashes.log; exit 1'));
      const waiting = (e: ObservedEvent<Pod>) => mainStatus(e.object)?.state?.waiting;
      await watch.until((e) => waiting(e)?.message?.startsWith(`back-off ${BACKOFF_MAX} `) === true, `a back-off of ${BACKOFF_MAX}`, 90_000);
      const messages = watch.events.map(waiting).filter((w) => w?.reason === 'CrashLoopBackOff').map((w) => w?.message ?? '');
      for (const m of messages) assert.match(m, /^back-off \d+s restarting failed container=main pod=crasher_default\(/);
    } finally {
      await watch.stop();
    }
    assert.ok((mainStatus(await get('crasher'))?.restartCount ?? 0) >= 2);
  });

  it('6. the API server stopped (SIGSTOP) longer than the status period: the pods keep serving and a crashing container keeps restarting; after SIGCONT everything catches up', async () => {
    const crashes = join(shared, 'crashes.log');
    let crashesAtCont = 0;
    await journey.apiServerOutage({
      apiserverPid: server.apiserverPid(),
      statusPeriodMs: STATUS_PERIOD_MS,
      nodes: [NODE],
      // No API call while it is stopped: the shared directory tells what the kubelet does.
      whileStopped: async () => {
        const crashesAtStop = await lineCount(crashes);
        await until('two more crashes with the API server stopped', async () => (await lineCount(crashes)) >= crashesAtStop + 2, 20_000);
        crashesAtCont = await lineCount(crashes);
      },
    });
    await until(`the crasher's restartCount to reach ${crashesAtCont - 1} in the API`, async () => (mainStatus(await get('crasher'))?.restartCount ?? 0) >= crashesAtCont - 1);
    await remove('crasher');
  });

  it('8. rollout restart and set env roll through, never fewer ready endpoints than replicas − maxUnavailable', () => journey.rollouts());

  it('9. kubectl delete -f: everything it created is garbage-collected', () => journey.deleteAll());

  it('exec startup probes hold off a tcpSocket liveness probe until one succeeds; then the liveness failure restarts the container', async () => {
    const attempts = join(shared, 'startup-probes.log');
    const pod = shellPod('slow', 'exec sleep 3600', {}, {
      startupProbe: { exec: { command: ['sh', '-c', 'echo probed >> /shared/startup-probes.log; test -e /shared/slow-started'] }, periodSeconds: 1, failureThreshold: 600 },
      // Nothing listens on 8080: every liveness probe fails, once it runs.
      livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1, failureThreshold: 1 },
    });
    await apply(pod);
    await until('three failed startup probes', async () => (await lineCount(attempts)) >= 3);
    let status = mainStatus(await get('slow'));
    assert.equal(status?.restartCount, 0, 'no liveness restart while the startup probe has not succeeded');
    assert.equal(status?.started, false);
    await writeFile(join(shared, 'slow-started'), '');
    await until('the liveness restart once started', async () => (mainStatus(await get('slow'))?.restartCount ?? 0) >= 1, 90_000);
    status = mainStatus(await get('slow'));
    assert.ok((status?.restartCount ?? 0) >= 1);
    const events = await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.name=slow,reason=Unhealthy', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}');
    assert.match(events, /^Startup probe failed/m);
    assert.match(events, /^Liveness probe failed/m);
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

  /** One pod for both kubectl versions: an httpd on 8080 and a numbered line on stdout every 0.2 s. */
  let streamPod: Promise<void> | undefined;
  const versions = ['1.33', '1.27'] as const satisfies readonly KubectlVersion[];
  for (const version of versions) {
    it(`kubectl ${version} port-forward and attach go through containerd's streaming server`, async () => {
      const name = 'stream';
      streamPod ??= (async () => {
        await apply(shellPod(name, `mkdir -p /www && echo served by ${name} > /www/index.html && httpd -p 8080 -h /www && i=0; while true; do i=$((i+1)); echo line $i; sleep 0.2; done`));
        await until(`${name} running`, () => running(name));
      })();
      await streamPod;
      const k = newKubectl(version, server.kubeconfig);
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
        assert.match(answer, new RegExp(`^HTTP/1\\.[01] 200 OK[^]*\\r\\n\\r\\nserved by ${name}\\n$`), forwarded);
        await until(`two lines through attach (${attached})`, () => /line \d+\n[^]*line \d+\n/.test(attached) || attach.exitCode !== null, 30_000);
        const numbers = [...attached.matchAll(/^line (\d+)$/gm)].map((m) => Number(m[1]));
        assert.ok(numbers.length >= 2, attached);
        for (let i = 1; i < numbers.length; i++) assert.equal(numbers[i], numbers[i - 1]! + 1, 'consecutive lines, none lost');
      } finally {
        forward.kill('SIGTERM');
        attach.kill('SIGTERM');
        if (version === versions.at(-1)) await remove(name);
      }
    });
  }

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
