/**
 * The DaemonSet and StatefulSet controllers end to end: a real k8ts API server
 * and controller manager (running those two controllers), real kubectl 1.32,
 * and a pod runner that stands in for the scheduler and the kubelets (it binds
 * pods and marks them Running and Ready), over two Node objects without
 * kubelets. No node lifecycle controller: the Nodes send no heartbeats, and
 * once their startup grace period passed it would mark the pods not Ready.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import type { WatchEvent } from '../../../src/client/rest/interface.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { NODES, PODS } from '../../../src/client/rest/resources.js';
import { startPodRunner, type PodRunner } from '../../../src/controllers/daemonset/testing/pod-runner.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

type Pod = KubeObject & { spec?: { nodeName?: string }; status?: { phase?: string; conditions?: { type: string; status: string }[] } };

const DAEMON_SET = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      nodeSelector: {e2e-sets: "yes"}
      containers:
      - {name: agent, image: "agent:1"}
`;

const STATEFUL_SET = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: 0
  serviceName: web
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: web, image: "nginx:1"}
`;

const isReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

describe('DaemonSet and StatefulSet controllers with kubectl 1.32', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let client: HttpClient;
  let kubectl: Kubectl;
  let runner: PodRunner;

  before(async () => {
    cluster = await startLeanCluster('sets', { controllerManagerArgs: ['--controllers=daemonset,statefulset'] });
    client = newHttpClient(restConfigFromKubeconfig(cluster.kubeconfig));
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    for (const name of ['sets-a', 'sets-b']) {
      await client.resource(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'e2e-sets': 'yes' } } });
    }
    runner = startPodRunner({ client, namespace: 'default', defaultNode: 'sets-a' });
  });

  after(async () => {
    runner?.stop();
    await cluster?.stop();
  });

  it('runs a DaemonSet pod on each labelled node; rollout status, history and undo work', async () => {
    assert.match(await withStdin(kubectl, cluster.kubeconfig, DAEMON_SET).ok('apply', '-f', '-'), /daemonset.apps\/agent created/);
    assert.match(await kubectl.ok('rollout', 'status', 'daemonset/agent', '--timeout=90s'), /daemon set "agent" successfully rolled out/);
    const nodes = await kubectl.ok('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[*].spec.nodeName}');
    assert.deepEqual(nodes.split(' ').sort(), ['sets-a', 'sets-b']);
    const affinity = await kubectl.ok('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key}');
    assert.equal(affinity, 'metadata.name');

    await kubectl.ok('set', 'image', 'daemonset/agent', 'agent=agent:2');
    assert.match(await kubectl.ok('rollout', 'status', 'daemonset/agent', '--timeout=90s'), /daemon set "agent" successfully rolled out/);
    assert.equal(await kubectl.ok('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[*].spec.containers[0].image}'), 'agent:2 agent:2');
    assert.match(await kubectl.ok('rollout', 'history', 'daemonset/agent'), /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    assert.match(await kubectl.ok('rollout', 'history', 'daemonset/agent', '--revision=1'), /Image:\s+agent:1/);

    assert.match(await kubectl.ok('rollout', 'undo', 'daemonset/agent'), /daemonset.apps\/agent rolled back/);
    assert.match(await kubectl.ok('rollout', 'status', 'daemonset/agent', '--timeout=90s'), /successfully rolled out/);
    assert.match(await kubectl.ok('rollout', 'history', 'daemonset/agent'), /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
    assert.match(await kubectl.ok('rollout', 'undo', 'daemonset/agent', '--to-revision=3'), /skipped rollback \(current template already matches revision 3\)/);
    const status = JSON.parse(await kubectl.ok('get', 'daemonset', 'agent', '-o', 'jsonpath={.status}')) as Record<string, number>;
    assert.deepEqual(
      [status.desiredNumberScheduled, status.currentNumberScheduled, status.numberReady, status.updatedNumberScheduled, status.numberAvailable],
      [2, 2, 2, 2, 2],
    );
    const reasons = await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.name=agent', '-o', 'jsonpath={.items[*].reason}');
    assert.match(reasons, /SuccessfulCreate/);
    assert.match(reasons, /SuccessfulDelete/);
  });

  it('scales a StatefulSet 0 → 3 in order, each pod only after the previous is Ready; rollout status works', async () => {
    assert.match(await withStdin(kubectl, cluster.kubeconfig, STATEFUL_SET).ok('apply', '-f', '-'), /statefulset.apps\/web created/);
    const pods = client.resource<Pod>(PODS);
    const start = await pods.list({ namespace: 'default', labelSelector: 'app=web' });
    const watch = pods.watch({ namespace: 'default', labelSelector: 'app=web', resourceVersion: start.metadata.resourceVersion ?? '' });
    const created: string[] = [];
    const violations: string[] = [];
    const ready = new Set<string>();
    const watching = (async () => {
      for await (const event of watch as AsyncIterable<WatchEvent<Pod>>) {
        const name = event.object.metadata.name ?? '';
        if (event.type === 'ADDED') {
          const ordinal = Number(/-(\d+)$/.exec(name)?.[1] ?? -1);
          if (ordinal > 0 && !ready.has(`web-${ordinal - 1}`)) violations.push(`${name} was created before web-${ordinal - 1} was Ready`);
          created.push(name);
        }
        if (event.type === 'DELETED' || !isReady(event.object)) ready.delete(name);
        else ready.add(name);
      }
    })();

    assert.match(await kubectl.ok('scale', 'statefulset/web', '--replicas=3'), /statefulset.apps\/web scaled/);
    assert.match(await kubectl.ok('rollout', 'status', 'statefulset/web', '--timeout=90s'), /partitioned roll out complete: 3 new pods have been updated/);
    watch.cancel();
    await watching.catch(() => undefined);
    assert.deepEqual(created, ['web-0', 'web-1', 'web-2']);
    assert.deepEqual(violations, []);

    assert.equal(await kubectl.ok('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.hostname}'), 'web-0 web-1 web-2');
    assert.equal(await kubectl.ok('get', 'pods', 'web-1', '-o', 'jsonpath={.metadata.labels.apps\\.kubernetes\\.io/pod-index}'), '1');
    const status = JSON.parse(await kubectl.ok('get', 'statefulset', 'web', '-o', 'jsonpath={.status}')) as Record<string, unknown>;
    assert.equal(status.readyReplicas, 3);
    assert.equal(status.currentRevision, status.updateRevision);
    const messages = await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.name=web', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}');
    assert.match(messages, /create Pod web-0 in StatefulSet web successful/);

    await kubectl.ok('set', 'image', 'statefulset/web', 'web=nginx:2');
    assert.match(await kubectl.ok('rollout', 'status', 'statefulset/web', '--timeout=90s'), /partitioned roll out complete: 3 new pods have been updated/);
    assert.equal(await kubectl.ok('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}'), 'nginx:2 nginx:2 nginx:2');
    assert.match(await kubectl.ok('rollout', 'undo', 'statefulset/web'), /statefulset.apps\/web rolled back/);
    assert.match(await kubectl.ok('rollout', 'status', 'statefulset/web', '--timeout=90s'), /partitioned roll out complete/);
    assert.equal(await kubectl.ok('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}'), 'nginx:1 nginx:1 nginx:1');
  });
});
