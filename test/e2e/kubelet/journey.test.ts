/**
 * The kubelet under `k8ts server`, as a user meets it with real kubectl: the
 * server's own node registers and is Ready, a pod made with `kubectl run`
 * runs as host processes (the process runtime), its output reaches
 * `kubectl logs`, `kubectl exec` returns the command's exit code, a failing
 * liveness probe restarts the container, a readiness probe decides whether
 * the pod is in its Service's endpoints, and `kubectl delete` waits for the
 * kubelet to stop the containers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

describe('the kubelet of k8ts server, through kubectl', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;

  /** The jsonpath value of an object, '' while it does not exist. */
  const field = async (what: string, path: string): Promise<string> => {
    const r = await kubectl('get', ...what.split(' '), '-o', `jsonpath={${path}}`);
    return r.code === 0 ? r.stdout.trim() : '';
  };
  const until = (description: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> =>
    waitFor(check, { timeoutMs, intervalMs: 200, description });

  before(async () => {
    cluster = await startCluster('kubelet-journey', {
      agent: true,
      serverArgs: ['--kubelet-arg=--crash-loop-backoff-initial=1s', '--kubelet-arg=--crash-loop-backoff-max=2s'],
    });
    kubectl = newKubectl('1.33', cluster.kubeconfig);
  });
  after(() => cluster?.stop());

  it('registers the server\'s node, Ready and labelled as the control plane', async () => {
    await until('a Ready node', async () => (await field('nodes', '.items[0].status.conditions[?(@.type=="Ready")].status')) === 'True');
    const nodes = await kubectl.ok('get', 'nodes');
    assert.match(nodes, /\bReady\b/);
    assert.match(nodes, /control-plane/);
  });

  it('runs a pod: Running with an address, its output in kubectl logs, exec returns the exit code', async () => {
    await kubectl.ok('run', 'hello', '--image=busybox:1.35', '--restart=Never', '--', 'sh', '-c', 'echo hello from k8ts; sleep 3600');
    await kubectl.ok('wait', '--for=condition=Ready', 'pod/hello', '--timeout=60s');
    assert.equal(await field('pod hello', '.status.phase'), 'Running');
    assert.match(await field('pod hello', '.status.podIP'), /^127\.244\.\d+\.\d+$/);
    await until('the pod\'s log line', async () => (await kubectl('logs', 'hello')).stdout.includes('hello from k8ts'));
    const exec = await kubectl('exec', 'hello', '--', 'sh', '-c', 'echo out; exit 3');
    assert.equal(exec.code, 3, exec.stderr);
    assert.match(exec.stdout, /out/);
  });

  it('restarts a container whose liveness probe fails, and counts it', async () => {
    const manifest = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'unhealthy' },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'busybox:1.35',
            command: ['sh', '-c', 'sleep 3600'],
            livenessProbe: { exec: { command: ['sh', '-c', 'exit 1'] }, periodSeconds: 1, failureThreshold: 1 },
          },
        ],
      },
    };
    await withStdin(kubectl, cluster.kubeconfig, JSON.stringify(manifest)).ok('apply', '-f', '-');
    await until('a restart', async () => Number((await field('pod unhealthy', '.status.containerStatuses[0].restartCount')) || '0') >= 1, 90_000);
    const events = await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.name=unhealthy');
    assert.match(events, /Unhealthy/);
    assert.match(events, /Liveness probe failed/);
  });

  it('puts a pod in its Service\'s endpoints only while its readiness probe passes', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'gated', labels: { app: 'gated' } },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'busybox:1.35',
            command: ['sh', '-c', 'sleep 3600'],
            readinessProbe: { exec: { command: ['test', '-e', '/tmp/k8ts-journey-never-there'] }, periodSeconds: 1 },
          },
        ],
      },
    };
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gated' }, spec: { selector: { app: 'gated' }, ports: [{ port: 80 }] } };
    await withStdin(kubectl, cluster.kubeconfig, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod, service] })).ok('apply', '-f', '-');
    await until('the pod running', async () => (await field('pod gated', '.status.phase')) === 'Running');
    await until('the pod listed as not ready', async () => (await field('endpoints gated', '.subsets[0].notReadyAddresses[0].ip')) !== '');
    assert.equal(await field('endpoints gated', '.subsets[0].addresses'), '');
    assert.equal(await field('pod gated', '.status.containerStatuses[0].restartCount'), '0');
  });

  it('deletes a pod gracefully: the API object goes once the kubelet has stopped it', async () => {
    await kubectl.ok('run', 'doomed', '--image=busybox:1.35', '--restart=Never', '--', 'sleep', '3600');
    await kubectl.ok('wait', '--for=condition=Ready', 'pod/doomed', '--timeout=60s');
    await kubectl.ok('delete', 'pod', 'doomed', '--timeout=60s');
    assert.equal((await kubectl('get', 'pod', 'doomed')).code, 1);
  });
});
