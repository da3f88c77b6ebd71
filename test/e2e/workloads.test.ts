/**
 * Workload kinds through the real kubectl 1.33: what `create -f` stores
 * (upstream's defaults, admission defaults), what it refuses (upstream's
 * messages, as kubectl prints them), `kubectl scale` through the Scale
 * subresource, `kubectl get` tables, and the pod binding and eviction
 * subresources.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startK8ts, type K8tsProcess } from './testing/k8ts-process.js';
import { newKubectl, type Kubectl } from './testing/kubectl.js';
import { ensureDefaultServiceAccount } from './testing/service-accounts.js';

const MANIFESTS: Record<string, string> = {
  deployment: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
`,
  pod: `apiVersion: v1
kind: Pod
metadata:
  name: solo
spec:
  containers:
  - name: main
    image: busybox
    command: [sleep, "3600"]
    resources:
      limits: {cpu: 100m, memory: 64Mi}
`,
  job: `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34
        command: [perl, -e, "print 1"]
      restartPolicy: Never
`,
  cronjob: `apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox:1.28
            command: [date]
          restartPolicy: OnFailure
`,
  statefulset: `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: postgres:16
`,
  daemonset: `apiVersion: apps/v1
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
      containers:
      - name: agent
        image: busybox
`,
  'bad-deployment': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
      - name: nginx
        image: nginx
`,
  'bad-cronjob': `apiVersion: batch/v1
kind: CronJob
metadata:
  name: never
spec:
  schedule: "61 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: c
            image: busybox
          restartPolicy: OnFailure
`,
  binding: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"solo"},"target":{"kind":"Node","name":"node-a"}}`,
  eviction: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"solo"},"deleteOptions":{"gracePeriodSeconds":0}}`,
};

type Json = Record<string, unknown>;

describe('workloads through kubectl 1.33', { timeout: 180_000 }, () => {
  let dir: string;
  let server: K8tsProcess;
  let kubectl: Kubectl;
  const file = (name: string): string => join(dir, `${name}.yaml`);
  const getYaml = async (...args: string[]): Promise<Json> => parseYaml(await kubectl.ok('get', ...args, '-o', 'yaml')) as Json;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-workloads-'));
    for (const [name, text] of Object.entries(MANIFESTS)) await writeFile(file(name), text);
    server = startK8ts(['server', '--data-dir', join(dir, 'data'), '--secure-port', '0', '--disable-agent']);
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    kubectl = newKubectl('1.33', line.slice('export KUBECONFIG='.length).trim());
    // Pods are refused until the ServiceAccount controller has made `default` (ServiceAccount admission).
    await ensureDefaultServiceAccount(kubectl, 'default');
  });

  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates each kind from a manifest', async () => {
    const created: string[] = [];
    for (const kind of ['deployment', 'pod', 'job', 'cronjob', 'statefulset', 'daemonset']) created.push((await kubectl.ok('create', '-f', file(kind))).trim());
    assert.deepEqual(created, [
      'deployment.apps/web created',
      'pod/solo created',
      'job.batch/pi created',
      'cronjob.batch/hello created',
      'statefulset.apps/db created',
      'daemonset.apps/agent created',
    ]);
  });

  it('get -o yaml shows the deployment with upstream defaults', async () => {
    const d = await getYaml('deployment', 'web');
    assert.equal((d.metadata as Json).generation, 1);
    const spec = d.spec as Json;
    assert.equal(spec.replicas, 1);
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    const template = spec.template as { metadata: Json; spec: Json };
    assert.deepEqual(template.metadata, { creationTimestamp: null, labels: { app: 'web' } });
    assert.deepEqual(template.spec, {
      containers: [
        {
          image: 'nginx:1.25',
          imagePullPolicy: 'IfNotPresent',
          name: 'nginx',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    });
    // The status is the deployment controller's (it runs in k8ts server): it may already be written.
    assert.ok([undefined, 1].includes((d.status as Json | undefined)?.observedGeneration as number | undefined));
  });

  it('get -o yaml shows the pod with defaults, admission defaults and its QoS class', async () => {
    const p = await getYaml('pod', 'solo');
    const spec = p.spec as Json;
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.serviceAccount, 'default');
    assert.equal(spec.enableServiceLinks, true);
    assert.equal(spec.priority, 0);
    assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(spec.tolerations, [
      { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
      { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
    ]);
    const container = (spec.containers as Json[])[0]!;
    assert.equal(container.imagePullPolicy, 'Always');
    assert.deepEqual(container.resources, { limits: { cpu: '100m', memory: '64Mi' }, requests: { cpu: '100m', memory: '64Mi' } });
    // The scheduler of k8ts server adds PodScheduled=False (no node exists here); the rest is the pod strategy's.
    const { conditions, ...status } = p.status as Json;
    assert.deepEqual(status, { phase: 'Pending', qosClass: 'Guaranteed' });
    assert.ok(conditions === undefined || (conditions as Json[]).every((c) => c.type === 'PodScheduled'));
  });

  it('get -o yaml shows the job with its generated selector and the cron job, stateful set and daemon set defaults', async () => {
    const job = await getYaml('job', 'pi');
    const uid = (job.metadata as Json).uid as string;
    const spec = job.spec as Json;
    assert.deepEqual(
      [spec.backoffLimit, spec.completions, spec.parallelism, spec.completionMode, spec.suspend, spec.manualSelector, spec.podReplacementPolicy],
      [6, 1, 1, 'NonIndexed', false, false, 'TerminatingOrFailed'],
    );
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    assert.deepEqual((spec.template as { metadata: Json }).metadata.labels, {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': uid,
      'job-name': 'pi',
    });

    const cron = (await getYaml('cronjob', 'hello')).spec as Json;
    assert.deepEqual([cron.concurrencyPolicy, cron.suspend, cron.successfulJobsHistoryLimit, cron.failedJobsHistoryLimit], ['Allow', false, 3, 1]);

    const sts = await getYaml('statefulset', 'db');
    const stsSpec = sts.spec as Json;
    assert.equal(stsSpec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(stsSpec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(stsSpec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    // The status is the statefulset controller's (it runs in k8ts server); no kubelet makes its pod available.
    assert.equal((sts.status as Json).availableReplicas, 0);
    assert.equal(typeof (sts.status as Json).replicas, 'number');

    const ds = await getYaml('daemonset', 'agent');
    assert.deepEqual((ds.spec as Json).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    // No node exists: the daemon set wants no pod (its status is the daemonset controller's).
    assert.deepEqual([(ds.status as Json).desiredNumberScheduled, (ds.status as Json).numberReady], [0, 0]);
  });

  it('refuses an invalid deployment and cron job with kubectl\'s exact error lines', async () => {
    const bad = await kubectl('create', '-f', file('bad-deployment'));
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr.trim(),
      'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
    );
    const cron = await kubectl('create', '-f', file('bad-cronjob'));
    assert.equal(cron.stderr.trim(), 'The CronJob "never" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61');
  });

  it('kubectl scale changes replicas through the Scale subresource and bumps the generation', async () => {
    assert.equal((await kubectl.ok('scale', 'deployment', 'web', '--replicas=3')).trim(), 'deployment.apps/web scaled');
    assert.equal(await kubectl.ok('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}'), '3 2');
    const scale = JSON.parse(await kubectl.ok('get', '--raw', '/apis/apps/v1/namespaces/default/deployments/web/scale')) as Json;
    // status.replicas counts the pods the controllers made so far.
    assert.deepEqual([scale.apiVersion, scale.kind, scale.spec, (scale.status as Json).selector], ['autoscaling/v1', 'Scale', { replicas: 3 }, 'app=web']);
    // With a precondition kubectl reads the Scale and writes it back whole (GET, then PUT).
    assert.equal((await kubectl.ok('scale', 'deployment', 'web', '--current-replicas=3', '--replicas=4')).trim(), 'deployment.apps/web scaled');
    assert.equal(await kubectl.ok('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}'), '4 3');
    const stale = await kubectl('scale', 'deployment', 'web', '--current-replicas=1', '--replicas=5');
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /Expected replicas to be 1, was 4/);
    assert.equal((await kubectl.ok('scale', 'deployment', 'web', '--replicas=3')).trim(), 'deployment.apps/web scaled');
    assert.equal((await kubectl.ok('scale', 'statefulset', 'db', '--replicas=2')).trim(), 'statefulset.apps/db scaled');
    assert.equal(await kubectl.ok('get', 'statefulset', 'db', '-o', 'jsonpath={.spec.replicas}'), '2');
  });

  it('a strategic merge patch of the Scale subresource goes through the strategic merge patch, directives included', async () => {
    const scalePatch = (patch: string) => kubectl('patch', 'statefulset', 'db', '--subresource=scale', '--type=strategic', '-p', patch);
    assert.equal((await scalePatch('{"spec":{"replicas":1}}')).stdout.trim(), 'scale.autoscaling/db patched');
    assert.equal(await kubectl.ok('get', 'statefulset', 'db', '-o', 'jsonpath={.spec.replicas}'), '1');
    const refused = await scalePatch('{"spec":{"replicas":4,"$patch":"bogus"}}');
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.trim(), 'Error from server: unknown patch type: bogus in map: map[$patch:bogus replicas:4]');
    assert.equal(await kubectl.ok('get', 'statefulset', 'db', '-o', 'jsonpath={.spec.replicas}'), '1');
  });

  it('kubectl get deploy prints the table', async () => {
    const lines = (await kubectl.ok('get', 'deploy')).trimEnd().split('\n');
    assert.match(lines[0]!, /^NAME +READY +UP-TO-DATE +AVAILABLE +AGE$/);
    // No kubelet runs pods here: none is ready or available; UP-TO-DATE counts the pods the controllers made so far.
    assert.match(lines[1]!, /^web +0\/3 +\d+ +0 +\d+s$/);
    assert.equal(lines.length, 2);
  });

  it('a pod spec may not change but its image may', async () => {
    assert.equal((await kubectl.ok('patch', 'pod', 'solo', '--type=json', '-p', '[{"op":"replace","path":"/spec/containers/0/image","value":"busybox:1.36"}]')).trim(), 'pod/solo patched');
    const refused = await kubectl('patch', 'pod', 'solo', '--type=merge', '-p', '{"spec":{"restartPolicy":"Never"}}');
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr.split('\n')[0],
      'The Pod "solo" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    );
  });

  it('binds a pod once, then evicts it', async () => {
    const bindings = '/api/v1/namespaces/default/pods/solo/binding';
    const bound = JSON.parse(await kubectl.ok('create', '--raw', bindings, '-f', join(dir, 'binding.yaml'))) as Json;
    assert.deepEqual(bound, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal(await kubectl.ok('get', 'pod', 'solo', '-o', 'jsonpath={.spec.nodeName} {.status.conditions[0].type}={.status.conditions[0].status}'), 'node-a PodScheduled=True');
    const again = await kubectl('create', '--raw', bindings, '-f', join(dir, 'binding.yaml'));
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Error from server \(Conflict\): Operation cannot be fulfilled on pods\/binding "solo": pod solo is already assigned to node "node-a"/);

    const evicted = JSON.parse(await kubectl.ok('create', '--raw', '/api/v1/namespaces/default/pods/solo/eviction', '-f', join(dir, 'eviction.yaml'))) as Json;
    assert.equal(evicted.status, 'Success');
    const gone = await kubectl('get', 'pod', 'solo');
    assert.equal(gone.stderr.trim(), 'Error from server (NotFound): pods "solo" not found');
  });
});
