import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LEASES, NODES, PODS } from '../client/rest/resources.js';
import { newFakeClient } from '../client/testing/fake-client.js';
import { newLogger } from '../machinery/logger.js';
import { KUBELET_DEFAULTS, type KubeletConfiguration } from './config/kubelet-config.js';
import { runKubelet, type KubeletParts } from './kubelet.js';
import type { MachineInfo } from './node/machine-info.js';
import type { PodWorkersOptions } from './pod-workers/interface.js';
import type { ProbeManagerOptions } from './prober/interface.js';
import type { ContainerRuntime, ImageService, RuntimeService } from './runtime/interface.js';
import type { KubeletServerOptions } from './server/interface.js';
import type { Node, Pod } from './types.js';

const logger = newLogger('test', { level: 'silent' });
const machine: MachineInfo = { cpus: 2, memoryBytes: 2 * 1024 ** 3, ephemeralStorageBytes: 10 * 1024 ** 3, kernelVersion: 'k', osImage: 'o', operatingSystem: 'linux', architecture: 'amd64', machineID: '', bootID: '', systemUUID: '' };

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A runtime that only answers what the kubelet itself asks (version, status, pod CIDR, images). */
function fakeRuntime() {
  const calls = { podCIDRs: [] as string[], closed: 0, stopped: 0 };
  let cidr = '';
  const runtime = {
    version: async () => ({ runtimeApiVersion: 'v1', runtimeName: 'fake', runtimeVersion: '1.0' }),
    status: async () => ({
      conditions: [
        { type: 'RuntimeReady', status: true, reason: '', message: '' },
        { type: 'NetworkReady', status: cidr !== '', reason: cidr !== '' ? '' : 'NoPodCIDR', message: '' },
      ],
    }),
    updateRuntimeConfig: async ({ podCIDR }: { podCIDR: string }) => {
      cidr = podCIDR;
      calls.podCIDRs.push(podCIDR);
    },
    stopContainer: async () => void calls.stopped++,
    stopPodSandbox: async () => void calls.stopped++,
  } as unknown as RuntimeService;
  const images = { listImages: async () => [] } as unknown as ImageService;
  const containerRuntime: ContainerRuntime = { name: 'process', runtime, images, close: async () => void calls.closed++ };
  return { containerRuntime, calls };
}

/** Fakes of the parts built elsewhere, recording what the kubelet gives them. */
function fakeParts() {
  const seen = {
    updates: [] as (readonly Pod[])[],
    requestSync: [] as string[],
    killed: [] as string[],
    workersStopped: false,
    probesStopped: false,
    serverClosed: false,
    workerOptions: undefined as PodWorkersOptions | undefined,
    probeOptions: undefined as ProbeManagerOptions | undefined,
    serverOptions: undefined as KubeletServerOptions | undefined,
  };
  const parts: KubeletParts = {
    newPodWorkers: (options) => {
      seen.workerOptions = options;
      return {
        update: (pods) => void seen.updates.push(pods),
        requestSync: (uid) => void seen.requestSync.push(uid),
        killContainer: (uid, name, id, message) => void seen.killed.push(`${uid}/${name}/${id}: ${message}`),
        stop: async () => void (seen.workersStopped = true),
      };
    },
    newApiObjectSource: () => ({
      configMap: async () => undefined,
      secret: async () => undefined,
      services: async () => [],
      serviceAccountToken: async () => ({ token: 't', expirationTimestamp: '' }),
    }),
    newVolumeManager: () => ({ setUpPod: async () => new Map(), tearDownPod: async () => undefined, podsOnDisk: async () => [] }),
    containerMounts: () => [],
    newEnvResolver: () => ({ containerEnv: async () => [] }),
    newProbeManager: (options) => {
      seen.probeOptions = options;
      return {
        addPod: () => undefined,
        containerStarted: () => undefined,
        containerStopped: () => undefined,
        removePod: () => undefined,
        isReady: () => true,
        isStarted: () => true,
        stop: () => void (seen.probesStopped = true),
      };
    },
    startKubeletServer: async (options) => {
      seen.serverOptions = options;
      return { port: 12345, close: async () => void (seen.serverClosed = true) };
    },
  };
  return { parts, seen };
}

describe('kubelet', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-kubelet-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const configFor = (name: string, extra: Partial<KubeletConfiguration> = {}): KubeletConfiguration => ({
    ...KUBELET_DEFAULTS,
    nodeName: 'node-a',
    rootDir: join(dir, name),
    port: 0,
    tlsCertFile: 'cert',
    tlsPrivateKeyFile: 'key',
    clientCaFile: 'ca',
    nodeStatusUpdateFrequencyMs: 10,
    nodeLeaseDurationSeconds: 0.04,
    fileCheckFrequencyMs: 50,
    registerNode: true,
    nodeLabels: { 'example.com/rack': 'r1' },
    registerWithTaints: [],
    backoff: { initialMs: 10, maxMs: 100, resetAfterMs: 1000 },
    ...extra,
  });

  it('registers the Node, heartbeats, reports status, feeds the pod workers and keeps mirror pods, wiring probes to the workers', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests, { recursive: true });
    await writeFile(join(manifests, 'web.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, image: busybox}]\n');
    const client = newFakeClient();
    client.seed(PODS, [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app', namespace: 'default', uid: 'app-uid' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'i' }] } } as Pod]);
    const { containerRuntime, calls } = fakeRuntime();
    const { parts, seen } = fakeParts();
    const kubelet = await runKubelet({ config: configFor('full', { podManifestPath: manifests }), client, runtime: containerRuntime, parts, logger, machineInfo: async () => machine });
    try {
      const node = await kubelet.registered;
      assert.equal(node.metadata.labels?.['example.com/rack'], 'r1');
      assert.equal(node.metadata.labels?.['kubernetes.io/hostname'], 'node-a');
      assert.equal(kubelet.serverPort, 12345);
      assert.equal(seen.serverOptions?.address, '127.0.0.1');
      assert.equal(seen.workerOptions?.logsDir, join(dir, 'full', 'logs'));
      assert.deepEqual(seen.workerOptions?.backoff, { initialMs: 10, maxMs: 100, resetAfterMs: 1000 });

      const nodes = client.resource<Node>(NODES);
      await until(async () => (await nodes.get('node-a')).status?.daemonEndpoints?.kubeletEndpoint?.Port === 12345, 'the node status');
      const stored = await nodes.get('node-a');
      assert.equal(stored.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False', 'no pod CIDR yet');
      await until(async () => (await client.resource(LEASES).list({ namespace: 'kube-node-lease' })).items.length === 1, 'the Lease');

      // Node IPAM gives the node its pod CIDR: the runtime is told, and the node becomes Ready.
      await nodes.patch('node-a', 'merge', { spec: { podCIDR: '127.244.1.0/24' } });
      await until(() => calls.podCIDRs.includes('127.244.1.0/24'), 'updateRuntimeConfig');
      await until(async () => (await nodes.get('node-a')).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True', 'Ready');

      // The workers get the API pod, the static pod and its mirror pod (for the static pod's status).
      await until(async () => (await client.resource<Pod>(PODS).list({ namespace: 'default' })).items.some((p) => p.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined), 'the mirror pod');
      await until(() => seen.updates.at(-1)?.length === 3 && kubelet.pods().mirrorPods.length === 1, 'the merged set');
      assert.deepEqual(seen.updates.at(-1)!.map((p) => p.metadata.name).sort(), ['app', 'web-node-a', 'web-node-a']);
      assert.equal(seen.updates.at(-1)!.filter((p) => p.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined).length, 1);

      seen.probeOptions!.onChange('app-uid');
      seen.probeOptions!.onFailure('app-uid', 'c', 'cid', 'liveness', 'Container c failed liveness probe, will be restarted');
      assert.deepEqual(seen.requestSync, ['app-uid']);
      assert.deepEqual(seen.killed, ['app-uid/c/cid: Container c failed liveness probe, will be restarted']);
    } finally {
      await kubelet.stop();
    }
    assert.ok(seen.workersStopped && seen.probesStopped && seen.serverClosed);
    assert.equal(calls.closed, 1);
    assert.equal(calls.stopped, 0, 'stopping the kubelet never stops containers');
  });

  it('runs without the parts (no pod is run) and reads static pods while the API server is unreachable', async () => {
    const manifests = join(dir, 'offline-manifests');
    await mkdir(manifests, { recursive: true });
    await writeFile(join(manifests, 'etcd.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: etcd, namespace: kube-system}\nspec:\n  containers: [{name: c, image: etcd}]\n');
    const client = newFakeClient();
    const { serviceUnavailable } = await import('../machinery/status.js');
    client.injectError('*', 'pods', serviceUnavailable('down'), 1_000_000);
    client.injectError('*', 'nodes', serviceUnavailable('down'), 1_000_000);
    client.injectError('*', 'leases', serviceUnavailable('down'), 1_000_000);
    const { containerRuntime } = fakeRuntime();
    const kubelet = await runKubelet({ config: configFor('offline', { podManifestPath: manifests }), client, runtime: containerRuntime, parts: undefined, logger, machineInfo: async () => machine });
    try {
      assert.equal(kubelet.serverPort, undefined);
      await until(() => kubelet.pods().staticPods.length === 1, 'the static pod');
      assert.equal(kubelet.pods().pods[0]!.metadata.name, 'etcd-node-a');
      assert.equal(kubelet.node(), undefined);
    } finally {
      await kubelet.stop();
    }
  });

  it('fails to start, naming the address, when the server cannot start', async () => {
    const { containerRuntime } = fakeRuntime();
    const { parts, seen } = fakeParts();
    const failing: KubeletParts = { ...parts, startKubeletServer: async () => Promise.reject(new Error('EADDRINUSE')) };
    await assert.rejects(
      runKubelet({ config: configFor('fail'), client: newFakeClient(), runtime: containerRuntime, parts: failing, logger, machineInfo: async () => machine }),
      /cannot start the kubelet server on 127\.0\.0\.1:0: EADDRINUSE/,
    );
    assert.ok(seen.workersStopped && seen.probesStopped);
  });
});
