/**
 * The journey of issue 10 on the process runtime: real kubectl against
 * `k8ts server` (started as the README says, timers shortened through flags)
 * and one `k8ts agent` joined with the command the server printed (its own
 * node at 127.0.0.2, its own data directory, no proxy), following `kubectl apply -f
 * examples/hello.yaml` from the API server to a running, reachable,
 * self-healing app (testing/journey-steps.ts has the steps and their checks):
 * 1. apply: each pod created → scheduled (across both nodes) → running →
 *    ready → in the Service's endpoints, in that order (watches and the audit
 *    log), with the time of each stage printed;
 * 2. the Service's cluster IP (the userspace proxy) is answered by all 3 pods;
 * 3. a deleted pod is replaced, never fewer than 2 Ready;
 * 4. readiness fails: out of the endpoints, no traffic, no restart; and back;
 * 5. liveness fails: restarted, RESTARTS counts up;
 * 6. the API server stopped (SIGSTOP) for longer than the status period: the
 *    pods keep serving; after SIGCONT everything catches up;
 * 7. the agent killed (SIGKILL; its kubelet dies with it): NotReady, its pods evicted after the
 *    copy's 2 s tolerations and recreated on the other node (then it comes
 *    back and finishes the evicted pods' deletion);
 * 8. rollout restart and set env roll through, never fewer ready endpoints
 *    than replicas − maxUnavailable;
 * 9. delete -f: everything is garbage-collected.
 */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';
import { writeHelloCopy } from './testing/hello-manifest.js';
import { buildProcessImage, startJourneyServer, startAgentNode, STATUS_PERIOD_MS, type JourneyServer, type AgentNode } from './testing/journey-cluster.js';
import { Journey, isReady } from './testing/journey-steps.js';
import { hostServiceClient } from './testing/service-client.js';

const SERVER_NODE = hostname().toLowerCase();
const AGENT_NODE = 'journey-agent';
/** The copy's tolerationSeconds for the not-ready and unreachable taints. */
const TOLERATION_SECONDS = 2;

describe('the journey on the process runtime: kubectl apply to a running, reachable, self-healing app', { timeout: 180_000 }, () => {
  let server: JourneyServer;
  let agent: AgentNode;
  let kubectl: Kubectl;
  let journey: Journey;

  before(async () => {
    server = await startJourneyServer({ name: 'process' });
    agent = await startAgentNode(server, { nodeName: AGENT_NODE });
    await Promise.all([buildProcessImage('hello', server.dataDir), buildProcessImage('hello', agent.dataDir)]);
    kubectl = newKubectl('1.32', server.kubeconfig);
    for (const node of [SERVER_NODE, AGENT_NODE]) {
      await kubectl.ok('wait', '--for=create', `node/${node}`, '--timeout=60s');
      await kubectl.ok('wait', '--for=condition=Ready', `node/${node}`, '--timeout=60s');
    }
    await kubectl.ok('wait', '--for=create', 'serviceaccount/default', '--timeout=60s');
    const manifest = join(server.root, 'hello.yaml');
    const names = await writeHelloCopy({ path: manifest, tolerationSeconds: TOLERATION_SECONDS });
    journey = new Journey({ kubectl, manifest, ...names, auditLog: server.auditLog, client: hostServiceClient(), print: (line) => console.log(line) });
    await journey.watch();
  });

  after(async () => {
    await journey?.stop();
    try {
      await agent?.stop();
    } finally {
      await server?.stop();
    }
  });

  it('1. kubectl apply: created → scheduled across both nodes → running → ready → in endpoints, in that order', async () => {
    await journey.apply({ nodes: [SERVER_NODE, AGENT_NODE] });
  });

  it('2. requests to the Service are answered by all 3 pods', () => journey.serviceAnsweredByAll());

  it('3. kubectl delete pod: a replacement becomes Ready, never fewer than 2 Ready', () => journey.deleteOnePod());

  it('4. a pod whose readiness fails leaves the endpoints and gets no traffic, is not restarted, and comes back', () => journey.readinessFlip());

  it('5. a pod whose liveness fails is restarted: RESTARTS counts up', () => journey.livenessFlip());

  it('6. the API server stopped (SIGSTOP) longer than the status period: the pods keep serving; after SIGCONT everything catches up', () =>
    journey.apiServerOutage({ apiserverPid: server.apiserverPid(), statusPeriodMs: STATUS_PERIOD_MS, nodes: [SERVER_NODE, AGENT_NODE] }));

  it('7. the agent killed (SIGKILL): its node goes NotReady, its pods are evicted after their toleration and recreated on the other node', async () => {
    const onAgent = journey.current().filter((p) => p.spec?.nodeName === AGENT_NODE).map((p) => p.metadata?.name ?? '');
    assert.ok(onAgent.length > 0, 'the agent runs some of the pods');
    const killed = agent.process();
    killed.child.kill('SIGKILL');
    await killed.stop();
    const readyStatus = async (): Promise<string> => (await kubectl.ok('get', 'node', AGENT_NODE, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')).trim();
    await waitNode(kubectl, AGENT_NODE, 'Unknown', readyStatus);
    await journey.until(
      "the agent's pods evicted, replacements Ready on the server's node",
      () =>
        onAgent.every((name) => journey.pod(name)?.metadata?.deletionTimestamp !== undefined || journey.pod(name) === undefined) &&
        journey.current().length === 3 &&
        journey.current().every((p) => p.spec?.nodeName === SERVER_NODE && isReady(p)) &&
        journey.settled(),
      30_000,
    );
    for (const name of onAgent) {
      const evicted = journey.pod(name);
      if (evicted !== undefined) assert.equal(evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager', name);
    }
    await journey.askUntilAll(journey.current().map((p) => p.metadata?.name ?? ''));
    // The node comes back (started again by hand: nothing restarts it on its own) and finishes the evicted pods.
    await agent.restart();
    await waitNode(kubectl, AGENT_NODE, 'True', readyStatus);
    await journey.until('the evicted pods gone', () => onAgent.every((name) => journey.pod(name) === undefined), 30_000);
  });

  it('8. rollout restart and set env roll through, never fewer ready endpoints than replicas − maxUnavailable', () => journey.rollouts());

  it('9. kubectl delete -f: everything it created is garbage-collected', () => journey.deleteAll());
});

async function waitNode(kubectl: Kubectl, node: string, status: string, read: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if ((await read()) === status) return;
    if (Date.now() > deadline) throw new Error(`node ${node} did not become Ready=${status}: ${await kubectl.ok('get', 'node', node, '-o', 'yaml')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
