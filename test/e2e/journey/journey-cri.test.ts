/**
 * The journey of issue 10 on the cri runtime: the same steps as
 * journey-process.test.ts (1–6, 8 and 9; testing/journey-steps.ts) against a
 * `k8ts server` with no node of its own (upstream's ranges: pods in
 * 10.244.0.0/16, Services in 10.96.0.0/12) and one worker node on a real
 * containerd inside a network namespace the test creates
 * (../kubelet/testing/cri-node.ts): its kubelet, its pods on a CNI bridge,
 * and `k8ts proxy --proxy-mode iptables`, whose rules route the Service's
 * cluster IP. Requests to the Service are sent from inside that namespace.
 * Skipped, with the reason, only where containerd cannot run (no root,
 * cgroups, overlayfs or network namespaces).
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { containerdUnavailableReason, startPrivateContainerd } from '../testing/containerd.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';
import { startCriNode, type CriNode } from '../kubelet/testing/cri-node.js';
import { writeHelloCopy } from './testing/hello-manifest.js';
import { KUBELET_TIMERS, startJourneyServer, STATUS_PERIOD_MS, type JourneyServer } from './testing/journey-cluster.js';
import { Journey } from './testing/journey-steps.js';
import { netnsServiceClient, type ServiceClient } from './testing/service-client.js';

const skip = await containerdUnavailableReason();
const NODE = 'journey-cri';
export const CRI_CLUSTER_ARGS = ['--cluster-cidr', '10.244.0.0/16', '--service-cluster-ip-range', '10.96.0.0/12'];

describe('the journey on the cri runtime (containerd in a network namespace)', { timeout: 200_000, ...(skip !== undefined ? { skip } : {}) }, () => {
  let server: JourneyServer;
  let node: CriNode;
  let kubectl: Kubectl;
  let client: ServiceClient;
  let journey: Journey;

  before(async () => {
    // containerd and its images (the slow part) come up while the server starts.
    const [started, containerd] = await Promise.allSettled([
      startJourneyServer({ name: 'cri', agent: false, extraArgs: CRI_CLUSTER_ARGS }),
      startPrivateContainerd({ images: ['busybox', 'pause', 'hello'] }),
    ]);
    if (started.status === 'fulfilled') server = started.value;
    if (started.status === 'rejected' || containerd.status === 'rejected') {
      if (containerd.status === 'fulfilled') await containerd.value.stop();
      throw started.status === 'rejected' ? started.reason : (containerd as PromiseRejectedResult).reason;
    }
    node = await startCriNode({
      serverDataDir: server.dataDir,
      apiServerPort: server.apiServerPort,
      nodeName: NODE,
      containerd: containerd.value,
      kubeletArgs: KUBELET_TIMERS,
      serviceClusterIPRange: '10.96.0.0/12',
      proxyArgs: ['--proxy-mode', 'iptables', '--cluster-cidr', '10.244.0.0/16', '--min-sync-period=100ms'],
    });
    kubectl = newKubectl('1.32', server.kubeconfig);
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
    try {
      await node?.stop();
    } finally {
      await server?.stop();
    }
  });

  it('1. kubectl apply: created → scheduled → running → ready → in endpoints, in that order', async () => {
    await journey.apply({ nodes: [NODE], timeoutMs: 90_000 });
  });

  it('2. requests to the Service (iptables rules, from inside the node) are answered by all 3 pods', () => journey.serviceAnsweredByAll());

  it('3. kubectl delete pod: a replacement becomes Ready, never fewer than 2 Ready', () => journey.deleteOnePod());

  it('4. a pod whose readiness fails leaves the endpoints and gets no traffic, is not restarted, and comes back', () => journey.readinessFlip());

  it('5. a pod whose liveness fails is restarted: RESTARTS counts up', () => journey.livenessFlip());

  it('6. the API server stopped (SIGSTOP) longer than the status period: the pods keep serving; after SIGCONT everything catches up', () =>
    journey.apiServerOutage({ apiserverPid: server.apiserverPid(), statusPeriodMs: STATUS_PERIOD_MS, nodes: [NODE] }));

  it('8. rollout restart and set env roll through, never fewer ready endpoints than replicas − maxUnavailable', () => journey.rollouts());

  it('9. kubectl delete -f: everything it created is garbage-collected', () => journey.deleteAll());
});
