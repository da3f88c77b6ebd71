/**
 * The endpoints, EndpointSlice, service account, job and cronjob controllers
 * end to end: `k8ts server` (API server + controller manager), real kubectl,
 * and an in-test helper that plays kubelet by writing pods' status (podIP,
 * phase, Ready) through the status subresource.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import type { WatchEvent } from '../../../src/client/rest/interface.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { CRON_JOBS, ENDPOINT_SLICES, PODS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';
import { waitForDefaultServiceAccount } from '../testing/service-accounts.js';

type PodObject = Pod & KubeObject;
type SliceObject = EndpointSlice & KubeObject;

const WAIT = { timeoutMs: 60_000, intervalMs: 200 };
const rv = (o: KubeObject): bigint => BigInt(o.metadata.resourceVersion ?? '0');

describe('controllers end to end: endpoints, EndpointSlices, service accounts, jobs', { timeout: 300_000 }, () => {
  let root: string;
  let server: K8tsProcess;
  let kubeconfig: string;
  let admin: HttpClient;
  let kubectl: Kubectl;

  /** The kubelet stand-in: write a pod's status as a kubelet would. */
  const setPodStatus = async (namespace: string, name: string, status: PodObject['status']): Promise<PodObject> => {
    const pods = admin.resource<PodObject>(PODS);
    for (;;) {
      const pod = await pods.get(name, { namespace });
      try {
        return await pods.updateStatus({ ...pod, status: { ...pod.status, ...status } }, { namespace });
      } catch (e: unknown) {
        if ((e as { code?: number }).code !== 409) throw e;
      }
    }
  };
  const runningReady = (ip: string, ready: boolean, at: string): PodObject['status'] => ({
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: at }],
  });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-e2e-net-'));
    server = startK8ts([
      'server',
      '--disable-agent',
      '--data-dir',
      join(root, 'data'),
      '--secure-port',
      '0',
      '--controller-manager-arg=--leader-elect-lease-duration=4s',
      '--controller-manager-arg=--leader-elect-renew-deadline=3s',
      '--controller-manager-arg=--leader-elect-retry-period=500ms',
    ]);
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    kubeconfig = line.slice('export KUBECONFIG='.length).trim();
    await server.waitForLine(/^controller-manager: started \(pid \d+\)$/, 60_000);
    admin = newHttpClient(restConfigFromKubeconfig(kubeconfig));
    kubectl = newKubectl('1.32', kubeconfig);
    await waitForDefaultServiceAccount(kubectl, 'default', 60_000);
  });

  after(async () => {
    admin?.close();
    if (server !== undefined) await server.stop('SIGTERM');
    await rm(root, { recursive: true, force: true });
  });

  it('a new namespace gets a default ServiceAccount', async () => {
    await kubectl.ok('create', 'namespace', 'e2e-sa');
    await waitFor(async () => (await kubectl('get', 'sa', 'default', '-n', 'e2e-sa', '-o', 'name')).stdout.trim() === 'serviceaccount/default', {
      ...WAIT,
      description: 'the default ServiceAccount appears',
    });
  });

  it('a Service’s Endpoints and EndpointSlice follow its pods’ readiness', async () => {
    const manifest = `
apiVersion: v1
kind: Service
metadata: { name: web, namespace: default }
spec:
  selector: { app: web }
  ports: [{ name: http, port: 80, targetPort: http }]
---
apiVersion: v1
kind: Pod
metadata: { name: web-a, namespace: default, labels: { app: web } }
spec: { containers: [{ name: c, image: busybox, ports: [{ name: http, containerPort: 8080 }] }] }
---
apiVersion: v1
kind: Pod
metadata: { name: web-b, namespace: default, labels: { app: web } }
spec: { containers: [{ name: c, image: busybox, ports: [{ name: http, containerPort: 8080 }] }] }
`;
    await withStdin(kubectl, kubeconfig, manifest).ok('apply', '-f', '-');
    await setPodStatus('default', 'web-a', runningReady('127.244.0.10', true, '2026-01-01T00:00:00Z'));
    await setPodStatus('default', 'web-b', runningReady('127.244.0.11', true, '2026-01-01T00:00:00Z'));
    const ips = async (path: string): Promise<string> =>
      (await kubectl.ok('get', 'endpoints', 'web', '-o', `jsonpath={.subsets[*].${path}[*].ip}`)).trim().split(/\s+/).sort().join(' ');
    await waitFor(async () => (await ips('addresses')) === '127.244.0.10 127.244.0.11', { ...WAIT, description: 'both pods ready in the Endpoints' });
    assert.equal((await kubectl.ok('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].ports[0].port}')).trim(), '8080');
    const printed = await kubectl('get', 'endpoints', 'web');
    assert.match(printed.stdout, /127\.244\.0\.10:8080,127\.244\.0\.11:8080/);
    // Upstream 1.33 warns on every request for v1 Endpoints.
    assert.equal(printed.stderr.trim(), 'Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice');

    const slices = admin.resource<SliceObject>(ENDPOINT_SLICES);
    const sliceList = async (): Promise<SliceObject[]> => (await slices.list({ namespace: 'default', labelSelector: 'kubernetes.io/service-name=web' })).items;
    await waitFor(async () => (await sliceList())[0]?.endpoints?.filter((e) => e.conditions?.ready === true).length === 2, { ...WAIT, description: 'the slice lists both' });
    const [slice] = await sliceList();
    assert.equal(slice!.metadata.labels?.['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.equal(slice!.metadata.ownerReferences?.[0]?.kind, 'Service');

    // Ordering: the first slice written after web-b turns not ready marks it not ready.
    const events: WatchEvent<SliceObject>[] = [];
    const watch = slices.watch({ namespace: 'default', resourceVersion: slice!.metadata.resourceVersion! });
    const reading = (async () => {
      for await (const e of watch) events.push(e);
    })().catch(() => undefined);
    const flipped = await setPodStatus('default', 'web-b', runningReady('127.244.0.11', false, '2026-01-01T00:01:00Z'));
    const firstAfter = (): SliceObject | undefined => events.map((e) => e.object).find((s) => rv(s) > rv(flipped) && (s.endpoints ?? []).some((e) => e.targetRef?.name === 'web-b'));
    await waitFor(() => firstAfter() !== undefined, { ...WAIT, description: 'a slice written after the flip' });
    assert.deepEqual(firstAfter()!.endpoints!.find((e) => e.targetRef?.name === 'web-b')!.conditions, { ready: false, serving: false, terminating: false });
    watch.cancel();
    await reading;

    await waitFor(async () => (await ips('notReadyAddresses')) === '127.244.0.11', { ...WAIT, description: 'web-b not ready in the Endpoints' });
    assert.equal(await ips('addresses'), '127.244.0.10');
    await kubectl.ok('delete', 'service', 'web');
    await waitFor(async () => (await kubectl('get', 'endpoints', 'web')).code !== 0, { ...WAIT, description: 'the Endpoints go with the Service' });
  });

  it('a Job with completions 3 and parallelism 2 completes, never running more than 2 pods', async () => {
    const manifest = `
apiVersion: batch/v1
kind: Job
metadata: { name: pi, namespace: default }
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{ name: main, image: busybox }]
`;
    let maxActive = 0;
    const pods = admin.resource<PodObject>(PODS);
    const watch = pods.watch({ namespace: 'default', labelSelector: 'batch.kubernetes.io/job-name=pi' });
    const seen = new Map<string, PodObject>();
    const finishing = new Set<string>();
    const kubelet = (async () => {
      for await (const e of watch) {
        const name = e.object.metadata.name!;
        if (e.type === 'DELETED') seen.delete(name);
        else seen.set(name, e.object);
        const active = [...seen.values()].filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase ?? '') && p.metadata.deletionTimestamp === undefined);
        maxActive = Math.max(maxActive, active.length);
        for (const pod of active) {
          if (finishing.has(pod.metadata.name!)) continue;
          finishing.add(pod.metadata.name!);
          void setPodStatus('default', pod.metadata.name!, {
            phase: 'Succeeded',
            containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
          });
        }
      }
    })().catch(() => undefined);
    await withStdin(kubectl, kubeconfig, manifest).ok('apply', '-f', '-');
    await waitFor(async () => (await kubectl.ok('get', 'job', 'pi', '-o', 'jsonpath={.status.conditions[?(@.type=="Complete")].status}')).trim() === 'True', {
      ...WAIT,
      description: 'the Job completes',
    });
    watch.cancel();
    await kubelet;
    assert.equal((await kubectl.ok('get', 'job', 'pi', '-o', 'jsonpath={.status.succeeded}')).trim(), '3');
    assert.ok(maxActive <= 2, `at most 2 pods ran at once (saw ${maxActive})`);
    const described = await kubectl.ok('describe', 'job', 'pi');
    assert.match(described, /SuccessfulCreate\s+\S+\s+job-controller\s+Created pod: pi-/);
    assert.match(described, /Completed\s+\S+\s+job-controller\s+Job completed\n/);
    const podNames = (await kubectl.ok('get', 'pods', '-l', 'batch.kubernetes.io/job-name=pi', '-o', 'jsonpath={.items[*].metadata.finalizers}')).trim();
    assert.equal(podNames, '', 'every tracking finalizer removed');
  });
  it('a CronJob starts the Job of its most recent schedule time', async () => {
    const manifest = `
apiVersion: batch/v1
kind: CronJob
metadata: { name: tick, namespace: default }
spec:
  schedule: "* * * * *"
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{ name: main, image: busybox }]
`;
    await withStdin(kubectl, kubeconfig, manifest).ok('apply', '-f', '-');
    // Not to wait for the next minute: say the last run was two minutes ago, then resume; the run of the last minute is due now.
    const cronJobs = admin.resource<KubeObject>(CRON_JOBS);
    const lastMinute = Math.floor(Date.now() / 60_000) * 60_000;
    for (;;) {
      const cj = await cronJobs.get('tick', { namespace: 'default' });
      try {
        await cronJobs.updateStatus({ ...cj, status: { lastScheduleTime: new Date(lastMinute - 120_000).toISOString().replace('.000Z', 'Z') } }, { namespace: 'default' });
        break;
      } catch (e: unknown) {
        if ((e as { code?: number }).code !== 409) throw e;
      }
    }
    await kubectl.ok('patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"suspend":false}}');
    await waitFor(async () => (await kubectl.ok('get', 'cronjob', 'tick', '-o', 'jsonpath={.status.active[*].name}')).trim() !== '', {
      ...WAIT,
      description: 'the CronJob starts a Job',
    });
    const jobName = (await kubectl.ok('get', 'cronjob', 'tick', '-o', 'jsonpath={.status.active[0].name}')).trim();
    assert.match(jobName, /^tick-\d+$/);
    const scheduled = Number(jobName.slice('tick-'.length)) * 60_000;
    assert.ok(scheduled >= lastMinute, 'the most recent schedule time');
    const annotation = (await kubectl.ok('get', 'job', jobName, '-o', 'jsonpath={.metadata.annotations.batch\\.kubernetes\\.io/cronjob-scheduled-timestamp}')).trim();
    assert.equal(Date.parse(annotation), scheduled);
    assert.match(await kubectl.ok('describe', 'cronjob', 'tick'), new RegExp(`SuccessfulCreate\\s+\\S+\\s+cronjob-controller\\s+Created job ${jobName}`));
    await kubectl.ok('patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"suspend":true}}');
  });
});
