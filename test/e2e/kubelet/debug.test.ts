/**
 * `kubectl debug` end to end on the process runtime: the real kubectl adds an
 * ephemeral container through pods/ephemeralcontainers (a strategic merge
 * patch), the kubelet starts it once beside the running pod and reports it in
 * status.ephemeralContainerStatuses, and `kubectl logs` and `kubectl debug -i`
 * (attach) reach it. The subresource refuses to change or remove one.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Pod } from '../../../src/kubelet/types.js';
import { newHttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { PODS } from '../../../src/client/rest/resources.js';
import { StatusError } from '../../../src/machinery/status.js';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';
import { waitFor } from './streaming-cluster.js';

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: target
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox:1.35
    command: [sleep, "3600"]
`;

describe('kubectl debug: ephemeral containers', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  /** The first debug container's runtime id once it exited: the same one must stay (never pruned, never started again). */
  let exitedDebugContainerID = '';

  const pod = async (): Promise<Pod> => JSON.parse(await kubectl.ok('get', 'pod', 'target', '-o', 'json')) as Pod;
  const ephemeralState = async (name: string): Promise<string> => {
    const status = (await pod()).status?.ephemeralContainerStatuses?.find((s) => s.name === name);
    return Object.keys(status?.state ?? {})[0] ?? '';
  };

  before(async () => {
    cluster = await startCluster('debug', { agent: true });
    kubectl = newKubectl('1.33', cluster.kubeconfig);
    const manifest = join(cluster.workDir, 'pod.yaml');
    await writeFile(manifest, POD);
    await kubectl.ok('create', '-f', manifest);
    await kubectl.ok('wait', '--for=condition=Ready', 'pod/target', '--timeout=90s');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('adds a container to the running pod, which the kubelet starts once and reports', async () => {
    const out = await kubectl.ok('debug', 'target', '--image=busybox:1.35', '-c', 'dbg', '--target=app', '--', 'sh', '-c', 'echo debugging; sleep 2');
    // kubectl's own note (the process runtime shares no process namespace: host processes see each other anyway).
    assert.match(out, /^Targeting container "app"\./);
    const spec = (await pod()).spec?.ephemeralContainers ?? [];
    assert.deepEqual(spec.map((c) => [c.name, c.image, c.targetContainerName]), [['dbg', 'busybox:1.35', 'app']]);
    await waitFor(async () => (await ephemeralState('dbg')) !== '' && (await ephemeralState('dbg')) !== 'waiting', 'dbg to start');
    await waitFor(async () => (await kubectl('logs', 'target', '-c', 'dbg')).stdout === 'debugging\n', 'dbg to log');
    await waitFor(async () => (await ephemeralState('dbg')) === 'terminated', 'dbg to exit');
    const status = (await pod()).status!;
    const dbg = status.ephemeralContainerStatuses!.find((s) => s.name === 'dbg')!;
    assert.equal(dbg.state?.terminated?.exitCode, 0);
    assert.equal(dbg.restartCount, 0);
    assert.equal(dbg.ready, false);
    exitedDebugContainerID = dbg.containerID ?? '';
    assert.notEqual(exitedDebugContainerID, '');
    assert.equal(status.phase, 'Running', 'the pod runs on');
    assert.ok(status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), 'and stays Ready');
  });

  for (const version of ['1.33', '1.27'] as const) {
    it(`kubectl ${version} debug -i attaches to the new container (${version === '1.33' ? 'WebSocket' : 'SPDY'})`, async () => {
      const name = `dbg-i-${version.replace('.', '-')}`;
      const r = await newKubectl(version, cluster.kubeconfig, 'hello\n')('debug', '-i', 'target', '--image=busybox:1.35', '-c', name, '--', 'sh', '-c', 'read x; echo got $x');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /got hello/);
    });
  }

  it('refuses to remove or change an ephemeral container, and an ordinary update that adds one', async () => {
    const client = newHttpClient(restConfigFromKubeconfig(cluster.kubeconfig));
    const pods = client.resource<Pod>(PODS);
    const refused = async (patch: unknown, subresource?: string): Promise<StatusError> => {
      try {
        await pods.patch('target', 'json', patch, { namespace: 'default', ...(subresource !== undefined ? { subresource } : {}) });
      } catch (e: unknown) {
        if (e instanceof StatusError) return e;
        throw e;
      }
      throw new Error('the patch was accepted');
    };
    const removed = await refused([{ op: 'remove', path: '/spec/ephemeralContainers/0' }], 'ephemeralcontainers');
    assert.equal(removed.status.code, 422);
    assert.match(removed.message, /spec\.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed/);
    const changed = await refused([{ op: 'replace', path: '/spec/ephemeralContainers/0/image', value: 'busybox:1.36' }], 'ephemeralcontainers');
    assert.match(changed.message, /existing ephemeral containers "dbg" may not be changed/);
    const direct = await refused([{ op: 'add', path: '/spec/ephemeralContainers/-', value: { name: 'sneaky', image: 'busybox:1.35' } }]);
    assert.equal(direct.status.code, 422);
    assert.match(direct.message, /pod updates may not change fields other than/);
    // Anything but the ephemeral containers is ignored on the subresource (upstream drops it).
    await pods.patch('target', 'merge', { metadata: { labels: { dropped: 'yes' } }, spec: { activeDeadlineSeconds: 5 } }, { namespace: 'default', subresource: 'ephemeralcontainers' });
    const after = await pod();
    assert.equal(after.metadata?.labels?.['dropped'], undefined);
    assert.equal(after.spec?.activeDeadlineSeconds, undefined);
  });

  it('never starts an exited ephemeral container again: the pod synced for each debug container since, and it is the same one', async () => {
    const statuses = (await pod()).status?.ephemeralContainerStatuses ?? [];
    assert.deepEqual(statuses.map((s) => s.name), ['dbg', 'dbg-i-1-33', 'dbg-i-1-27']);
    const dbg = statuses[0]!;
    assert.equal(dbg.containerID, exitedDebugContainerID);
    assert.equal(dbg.restartCount, 0);
    assert.ok(dbg.state?.terminated !== undefined);
  });

  it('is listed by discovery as kubectl api-resources would see it', async () => {
    const list = JSON.parse(await kubectl.ok('get', '--raw', '/api/v1')) as { resources: { name: string; kind: string; verbs: string[] }[] };
    const sub = list.resources.find((r) => r.name === 'pods/ephemeralcontainers');
    assert.deepEqual(sub && { kind: sub.kind, verbs: sub.verbs }, { kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  });
});
