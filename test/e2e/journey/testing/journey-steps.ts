/**
 * The steps of the journey (issue 10) that both runtimes share, each with its
 * checks: the test files make the cluster and call these in order.
 *
 * Everything is observed the way a person at a terminal would: the real
 * kubectl (its watches, `exec`, `delete`, `rollout`), the audit log, and
 * requests to the Service's cluster IP. Invariants ("never fewer than 2
 * Ready", "ready endpoints never below replicas − maxUnavailable") are checked
 * at every event of a watch (live-objects.ts).
 */
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { waitFor } from '../../../../src/client/testing/wait-for.js';
import type { Kubectl } from '../../testing/kubectl.js';
import { auditCursor, auditEventsSince, completedWrites, receivedMicros, watchesEstablished, type AuditEvent } from './audit-trail.js';
import { startKubectlWatch, type KubectlWatch } from './kubectl-watch.js';
import { liveObjects, type LiveObjects } from './live-objects.js';
import type { Answer, ServiceClient } from './service-client.js';
import { StageTracker } from './stages.js';

export const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const live = (pod: Pod): boolean => pod.metadata?.deletionTimestamp === undefined;
const restarts = (pod: Pod | undefined): number => pod?.status?.containerStatuses?.reduce((n, s) => n + s.restartCount, 0) ?? 0;

/** The names of the pods an EndpointSlice set lists as ready endpoints. */
export function readyEndpointPods(slices: readonly EndpointSlice[]): string[] {
  const names = new Set<string>();
  for (const s of slices) for (const e of s.endpoints ?? []) if (e.conditions?.ready === true && e.targetRef?.name !== undefined) names.add(e.targetRef.name);
  return [...names].sort();
}

export interface JourneyOptions {
  readonly kubectl: Kubectl;
  /** The test's copy of examples/hello.yaml (hello-manifest.ts). */
  readonly manifest: string;
  readonly deployment: string;
  readonly service: string;
  readonly replicas: number;
  readonly auditLog: string;
  /** How requests reach the Service. */
  readonly client: ServiceClient;
  /** Printed lines (the stage report). */
  readonly print: (line: string) => void;
}

export class Journey {
  readonly kubectl: Kubectl;
  pods!: KubectlWatch<Pod>;
  slices!: KubectlWatch<EndpointSlice>;
  livePods!: LiveObjects<Pod>;
  liveSlices!: LiveObjects<EndpointSlice>;
  tracker!: StageTracker;
  clusterIP = '';

  constructor(readonly options: JourneyOptions) {
    this.kubectl = options.kubectl;
  }

  /** Start the watches (pods of the app, the Service's EndpointSlices) and wait until the API server has them. */
  async watch(): Promise<void> {
    const cursor = await auditCursor(this.options.auditLog);
    this.pods = startKubectlWatch<Pod>(this.kubectl, 'pods', { selector: 'app=hello' });
    this.slices = startKubectlWatch<EndpointSlice>(this.kubectl, 'endpointslices', { selector: `kubernetes.io/service-name=${this.options.service}` });
    await Promise.all([watchesEstablished(cursor, 'pods', 1), watchesEstablished(cursor, 'endpointslices', 1)]);
    this.livePods = liveObjects(this.pods);
    this.liveSlices = liveObjects(this.slices);
  }

  async stop(): Promise<void> {
    this.livePods?.stop();
    this.liveSlices?.stop();
    await Promise.all([this.pods?.stop(), this.slices?.stop()]);
  }

  /** Pods now: not terminating. */
  current(): Pod[] {
    return this.livePods.current().filter(live);
  }

  readyCount(pods: readonly Pod[] = this.livePods.current()): number {
    return pods.filter((p) => live(p) && isReady(p)).length;
  }

  pod(name: string): Pod | undefined {
    return this.livePods.current().find((p) => p.metadata?.name === name);
  }

  /** Resolve when `check` holds over the current pods (checked at each pod or slice event, and now). */
  until(description: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
    return waitFor(check, { timeoutMs, intervalMs: 20, description });
  }

  /** All replicas Ready, not terminating, and listed as ready endpoints (and no other pod is). */
  settled(): boolean {
    const pods = this.current();
    const names = pods.map((p) => p.metadata?.name ?? '').sort();
    return pods.length === this.options.replicas && pods.every(isReady) && JSON.stringify(readyEndpointPods(this.liveSlices.current())) === JSON.stringify(names);
  }

  /**
   * Step 1: apply the manifest; observe each pod through created → scheduled →
   * running → ready → in endpoints, in that order, and the audit log's writes
   * in causal order. Returns the stage tracker (its report is printed).
   */
  async apply(options: {
    readonly nodes: readonly string[];
    readonly timeoutMs?: number;
    /**
     * Wait until every pod is Ready and listed at the same moment (default true). The bench only waits until each pod
     * has been listed once: on a loaded machine a probe that times out flips a pod back for a while.
     */
    readonly settle?: boolean;
  }): Promise<StageTracker> {
    const cursor = await auditCursor(this.options.auditLog);
    const origin = Date.now();
    this.tracker = new StageTracker(origin);
    for (const e of this.pods.events) this.tracker.onPod(e);
    const offPods = this.pods.onEvent((e) => this.tracker.onPod(e));
    const offSlices = this.slices.onEvent((e) => this.tracker.onEndpointSlice(e));
    try {
      await this.kubectl.ok('apply', '-f', this.options.manifest);
      await this.until(
        `${this.options.replicas} pods in the Service's endpoints`,
        () => {
          const pods = this.current();
          const listed = pods.length === this.options.replicas && this.tracker.allReached(pods.map((p) => p.metadata?.name ?? ''), 'endpoints') !== undefined;
          return listed && (options.settle === false || this.settled());
        },
        options.timeoutMs ?? 60_000,
      );
    } finally {
      offPods();
      offSlices();
    }
    const names = this.current().map((p) => p.metadata?.name ?? '');
    this.options.print(this.tracker.report(names));
    this.options.print(`all ${names.length} pods ready ${this.tracker.allReached(names, 'ready')} ms and in endpoints ${this.tracker.allReached(names, 'endpoints')} ms after kubectl apply began`);
    for (const name of names) assert.deepEqual(this.tracker.outOfOrder(name), [], `the stages of ${name}`);
    const nodesUsed = new Set(this.current().map((p) => p.spec?.nodeName));
    for (const node of options.nodes) assert.ok(nodesUsed.has(node), `a pod on ${node} (pods on ${[...nodesUsed].join(', ')})`);
    this.checkAuditTrail(await auditEventsSince(cursor), names);
    this.clusterIP = (await this.kubectl.ok('get', 'service', this.options.service, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    return this.tracker;
  }

  /** The audit log's writes: the Deployment, then its ReplicaSet, then each pod's create, binding and status, in that order. */
  checkAuditTrail(events: readonly AuditEvent[], pods: readonly string[]): void {
    const writes = completedWrites(events);
    const first = (what: string, match: (e: AuditEvent) => boolean): AuditEvent => {
      const found = writes.find(match);
      assert.ok(found, `the audit log has ${what}`);
      return found;
    };
    const is = (resource: string, verb: string, subresource?: string) => (e: AuditEvent) =>
      e.objectRef?.resource === resource && e.verb === verb && e.objectRef.subresource === subresource;
    const deployment = first('the Deployment create', (e) => is('deployments', 'create')(e) && e.objectRef?.name === this.options.deployment);
    const replicaSet = first('the ReplicaSet create', (e) => is('replicasets', 'create')(e) && (e.objectRef?.name ?? '').startsWith(`${this.options.deployment}-`));
    assert.equal(deployment.user.username, 'kubernetes-admin');
    assert.equal(replicaSet.user.username, 'system:kube-controller-manager');
    assert.ok(receivedMicros(deployment) < receivedMicros(replicaSet), 'the Deployment before its ReplicaSet');
    for (const pod of pods) {
      const named = (e: AuditEvent): boolean => e.objectRef?.name === pod;
      const create = first(`the create of ${pod}`, (e) => is('pods', 'create')(e) && named(e));
      const binding = first(`the binding of ${pod}`, (e) => is('pods', 'create', 'binding')(e) && named(e));
      const status = first(`a status write of ${pod}`, (e) => (is('pods', 'patch', 'status')(e) || is('pods', 'update', 'status')(e)) && named(e));
      assert.equal(create.user.username, 'system:kube-controller-manager', `${pod} made by the ReplicaSet controller`);
      assert.equal(binding.user.username, 'system:kube-scheduler', `${pod} bound by the scheduler`);
      assert.match(status.user.username, /^system:node:/, `${pod}'s status written by a kubelet`);
      assert.ok(receivedMicros(replicaSet) < receivedMicros(create), `the ReplicaSet before ${pod}`);
      assert.ok(receivedMicros(create) < receivedMicros(binding), `${pod}: create before binding`);
      assert.ok(receivedMicros(binding) < receivedMicros(status), `${pod}: binding before its status`);
    }
  }

  /** Ask the Service until every pod in `want` has answered (at most `max` requests); every answer must come from one of `allowed`. */
  async askUntilAll(want: readonly string[], options: { readonly allowed?: readonly string[]; readonly max?: number } = {}): Promise<string[]> {
    const allowed = options.allowed ?? want;
    const seen: string[] = [];
    for (let i = 0; i < (options.max ?? 200) && !want.every((w) => seen.includes(w)); i++) {
      const answer = await this.ask();
      assert.ok('pod' in answer, `request ${i} to ${this.clusterIP}:80 failed: ${'error' in answer ? answer.error : ''}`);
      assert.ok(allowed.includes(answer.pod), `answered by ${answer.pod}, not one of ${allowed.join(', ')}`);
      seen.push(answer.pod);
    }
    assert.deepEqual([...new Set(seen)].filter((p) => want.includes(p)).sort(), [...want].sort(), `every pod answered (${seen.join(', ')})`);
    return seen;
  }

  ask(): Promise<Answer> {
    return this.options.client.ask(this.clusterIP, 80);
  }

  /** Step 2: the Service's cluster IP is answered by every pod. */
  async serviceAnsweredByAll(): Promise<void> {
    const names = this.current().map((p) => p.metadata?.name ?? '');
    await this.askUntilAll(names);
  }

  /** Step 3: delete a pod; a replacement becomes Ready, and no event ever shows fewer than replicas − 1 Ready. */
  async deleteOnePod(): Promise<void> {
    const victim = this.current()[0]!.metadata!.name!;
    const ready = this.livePods.track((pods) => this.readyCount(pods));
    try {
      await this.kubectl.ok('delete', 'pod', victim, '--timeout=60s');
      await this.until('a replacement Ready and in the endpoints', () => this.pod(victim) === undefined && this.settled());
    } finally {
      ready.stop();
    }
    assert.ok(ready.min() >= this.options.replicas - 1, `at least ${this.options.replicas - 1} Ready at every event (saw ${ready.values().join(' ')})`);
    assert.ok(!this.current().some((p) => p.metadata?.name === victim));
  }

  /** Step 4: a pod whose readiness fails leaves the endpoints and gets no traffic, is not restarted, and comes back when it passes. */
  async readinessFlip(): Promise<void> {
    const pods = this.current().map((p) => p.metadata?.name ?? '');
    const flipped = pods[0]!;
    const others = pods.slice(1);
    const restartsBefore = restarts(this.pod(flipped));
    await this.kubectl.ok('exec', flipped, '--', 'hello', 'readiness', 'fail');
    await this.until(`${flipped} out of the ready endpoints`, () => !readyEndpointPods(this.liveSlices.current()).includes(flipped));
    assert.equal(isReady(this.pod(flipped)!), false, `${flipped} not Ready`);
    // The proxy applies the change at its next sync: wait until it has (a run of answers from the others only), then it
    // must get no request at all.
    await this.untilRun(others, 3 * others.length + 6);
    await this.askUntilAll(others, { allowed: others });
    assert.equal(restarts(this.pod(flipped)), restartsBefore, 'a failing readiness probe does not restart');
    await this.kubectl.ok('exec', flipped, '--', 'hello', 'readiness', 'pass');
    await this.until(`${flipped} back in the endpoints`, () => this.settled());
    await this.askUntilAll(pods);
    assert.equal(restarts(this.pod(flipped)), restartsBefore);
  }

  /** Ask until `length` answers in a row came from `allowed` (with a deadline). */
  async untilRun(allowed: readonly string[], length: number, timeoutMs = 15_000): Promise<void> {
    let run = 0;
    await waitFor(
      async () => {
        const answer = await this.ask();
        run = 'pod' in answer && allowed.includes(answer.pod) ? run + 1 : 0;
        return run >= length;
      },
      { timeoutMs, intervalMs: 0, description: `${length} answers in a row from ${allowed.join(', ')}` },
    );
  }

  /** Step 5: a pod whose liveness fails is restarted by its kubelet: RESTARTS counts up, and it is Ready again. */
  async livenessFlip(): Promise<void> {
    const pod = this.current()[0]!.metadata!.name!;
    const before = restarts(this.pod(pod));
    await this.kubectl.ok('exec', pod, '--', 'hello', 'liveness', 'fail');
    await this.until(`${pod} restarted`, () => restarts(this.pod(pod)) === before + 1, 30_000);
    await this.until('the restarted pod Ready and in the endpoints', () => this.settled(), 30_000);
    const table = await this.kubectl.ok('get', 'pod', pod, '--no-headers');
    assert.match(table, new RegExp(`^${pod}\\s+1/1\\s+Running\\s+${before + 1}\\b`), table);
    const events = await this.kubectl.ok('get', 'events', '--field-selector', `involvedObject.name=${pod}`);
    assert.match(events, /Liveness probe failed/);
  }

  /**
   * Step 6: SIGSTOP the API server for longer than the kubelets' status
   * period; the pods keep serving through the proxy's last rules; after
   * SIGCONT everything catches up: the same pods, Ready, with no restart,
   * the nodes Ready with renewed Leases, the watches still delivering.
   */
  async apiServerOutage(options: {
    readonly apiserverPid: number;
    readonly statusPeriodMs: number;
    readonly nodes: readonly string[];
    /** More checks while the API server is still stopped, after every pod has answered (they must not call the API). */
    readonly whileStopped?: () => Promise<void>;
  }): Promise<void> {
    const before = new Map(this.current().map((p) => [p.metadata?.name ?? '', { uid: p.metadata?.uid, restarts: restarts(p) }]));
    const names = [...before.keys()];
    const ready = this.livePods.track((pods) => this.readyCount(pods));
    const answered = new Set<string>();
    let requests = 0;
    process.kill(options.apiserverPid, 'SIGSTOP');
    const stoppedAt = Date.now();
    let resumedAt = 0;
    try {
      // The one wait on the clock: while the API server is stopped nothing about the kubelets can be observed through
      // it, so the test asks the Service until the wall clock has passed three status periods and every pod has answered.
      const until = stoppedAt + 3 * options.statusPeriodMs;
      while (Date.now() < until || answered.size < names.length) {
        const answer = await this.ask();
        assert.ok('pod' in answer, `request ${requests} during the outage failed: ${'error' in answer ? answer.error : ''}`);
        assert.ok(names.includes(answer.pod), `answered by ${answer.pod}`);
        answered.add(answer.pod);
        requests++;
        assert.ok(Date.now() - stoppedAt < 20_000, `all pods answered within 20 s of the outage (${[...answered].join(', ')})`);
      }
      await options.whileStopped?.();
    } finally {
      process.kill(options.apiserverPid, 'SIGCONT');
      resumedAt = Date.now();
    }
    this.options.print(`API server stopped for ${resumedAt - stoppedAt} ms: ${requests} requests answered by ${[...answered].sort().join(', ')}`);
    // Catching up: every node's Lease renewed after the resume, every node Ready.
    for (const node of options.nodes) {
      await waitFor(
        async () => {
          // A renewal the kubelet sent after the stop can only have been stored after the resume.
          const renew = (await this.kubectl.ok('get', 'lease', '-n', 'kube-node-lease', node, '-o', 'jsonpath={.spec.renewTime}')).trim();
          return Date.parse(renew) > stoppedAt;
        },
        { timeoutMs: 15_000, intervalMs: 100, description: `${node}'s Lease renewed after the outage` },
      );
      assert.equal((await this.kubectl.ok('get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')).trim(), 'True', `${node} Ready`);
    }
    // The watches deliver again (a write after the resume reaches them), and nothing changed meanwhile.
    await this.kubectl.ok('annotate', 'pods', '-l', 'app=hello', `journey.k8ts.io/after-outage=${resumedAt}`, '--overwrite');
    await this.until('the annotation through the watch', () =>
      this.current().every((p) => p.metadata?.annotations?.['journey.k8ts.io/after-outage'] === String(resumedAt)),
    );
    ready.stop();
    assert.ok(ready.min() >= this.options.replicas, `every pod stayed Ready (saw ${ready.values().join(' ')})`);
    const after = new Map(this.current().map((p) => [p.metadata?.name ?? '', { uid: p.metadata?.uid, restarts: restarts(p) }]));
    assert.deepEqual(after, before, 'the same pods, not restarted');
    assert.ok(this.settled());
    const available = (await this.kubectl.ok('get', 'deployment', this.options.deployment, '-o', 'jsonpath={.status.availableReplicas}')).trim();
    assert.equal(available, String(this.options.replicas));
  }

  /**
   * Step 8: `kubectl rollout restart`, then a template change with `kubectl
   * set env`: each rolls through, and the ready endpoints never drop below
   * spec.replicas − maxUnavailable at any EndpointSlice event.
   */
  async rollouts(): Promise<void> {
    const maxUnavailable = Number((await this.kubectl.ok('get', 'deployment', this.options.deployment, '-o', 'jsonpath={.spec.strategy.rollingUpdate.maxUnavailable}')).trim());
    assert.ok(Number.isInteger(maxUnavailable), 'the manifest gives maxUnavailable as a number');
    const floor = this.options.replicas - maxUnavailable;
    const rolls: Array<[string, string[]]> = [
      ['rollout restart', ['rollout', 'restart', `deployment/${this.options.deployment}`]],
      ['set env', ['set', 'env', `deployment/${this.options.deployment}`, 'JOURNEY_STEP=8']],
    ];
    for (const [what, args] of rolls) {
      const old = new Set(this.current().map((p) => p.metadata?.name ?? ''));
      const endpoints = this.liveSlices.track((slices) => readyEndpointPods(slices).length);
      try {
        await this.kubectl.ok(...args);
        await this.kubectl.ok('rollout', 'status', `deployment/${this.options.deployment}`, '--timeout=60s');
        await this.until(`${what}: new pods only, Ready and in the endpoints`, () => this.settled() && this.current().every((p) => !old.has(p.metadata?.name ?? '')) && this.livePods.current().length === this.options.replicas);
      } finally {
        endpoints.stop();
      }
      assert.ok(endpoints.min() >= floor, `${what}: at least ${floor} ready endpoints at every event (saw ${endpoints.values().join(' ')})`);
    }
    for (const pod of this.current()) assert.ok(pod.spec?.containers[0]?.env?.some((e) => e.name === 'JOURNEY_STEP' && e.value === '8'), `${pod.metadata?.name} has the new env`);
  }

  /** Step 9: `kubectl delete -f`: the Deployment, its ReplicaSets, its pods, the Service and its EndpointSlices all go. */
  async deleteAll(): Promise<void> {
    await this.kubectl.ok('delete', '-f', this.options.manifest);
    await this.until('every pod and EndpointSlice gone', () => this.livePods.current().length === 0 && this.liveSlices.current().length === 0, 60_000);
    for (const kind of ['deployments', 'replicasets', 'pods', 'services', 'endpoints', 'endpointslices']) {
      const left = (await this.kubectl.ok('get', kind, '-o', 'name')).split('\n').filter((l) => l.includes('hello'));
      assert.deepEqual(left, [], `no ${kind} of hello left`);
    }
  }
}
