/**
 * The audit log of `k8ts server`: on by default, one JSON event per line in
 * <data-dir>/logs/audit.log. From it a person follows the story of an object:
 * the admin creates a Deployment, the controller manager creates its
 * ReplicaSet and then its pods. A custom policy file changes the levels; an
 * unauthenticated request is logged with its 401; bad flags stop the API
 * server with a clear message.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { runK8ts } from '../testing/k8ts-process.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';

interface AuditLine {
  stage: string;
  verb: string;
  level: string;
  user: { username: string; groups?: string[] };
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string };
  responseStatus?: { code: number; reason?: string };
  requestObject?: { data?: Record<string, string> };
  responseObject?: { metadata?: { uid?: string } };
  annotations?: Record<string, string>;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
`;

describe('audit log', { timeout: 180_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let auditLog: string;

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k8ts-audit-policy-'));
    const policy = join(dir, 'policy.yaml');
    await writeFile(policy, POLICY);
    cluster = await startCluster('audit', { serverArgs: ['--audit-policy-file', policy] });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    auditLog = join(cluster.workDir, 'data', 'logs', 'audit.log');
  });
  after(async () => {
    await cluster?.stop();
  });

  async function lines(): Promise<AuditLine[]> {
    const text = await readFile(auditLog, 'utf8').catch(() => '');
    return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as AuditLine);
  }

  /** Poll the log until `find` returns something (events are written in batches, just after the response). */
  async function waitFor<T>(what: string, find: (events: AuditLine[]) => T | undefined): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found = find(await lines());
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`audit log never showed ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('tells the story of a Deployment: admin, then the controller manager\'s ReplicaSet and pods', async () => {
    await kubectl.ok('create', 'deployment', 'story', '--image=busybox', '--replicas=2');
    const deploymentCreate = await waitFor('the Deployment create', (events) =>
      events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'deployments' && e.objectRef.name === 'story'),
    );
    assert.equal(deploymentCreate.user.username, 'kubernetes-admin');
    assert.equal(deploymentCreate.level, 'Metadata');
    assert.equal(deploymentCreate.stage, 'ResponseComplete');
    assert.equal(deploymentCreate.responseStatus?.code, 201);
    assert.equal(deploymentCreate.objectRef?.apiGroup, 'apps');
    for (const stage of ['authentication', 'etcd', 'total']) {
      assert.match(deploymentCreate.annotations?.[`apiserver.latency.k8s.io/${stage}`] ?? '', /^[0-9.]+(ns|µs|ms|s)$/, stage);
    }
    const replicaSet = await waitFor('the ReplicaSet create', (events) =>
      events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'replicasets' && e.objectRef.name?.startsWith('story-') === true),
    );
    assert.equal(replicaSet.user.username, 'system:kube-controller-manager');
    const pods = await waitFor('both pod creates', (events) => {
      const creates = events.filter((e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.objectRef.name?.startsWith(`${replicaSet.objectRef?.name}-`) === true);
      return creates.length >= 2 ? creates : undefined;
    });
    const live = (await kubectl.ok('get', 'pods', '-l', 'app=story', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').sort();
    assert.deepEqual(pods.map((p) => p.objectRef?.name).sort(), live, 'the log names the pods the server generated');
    for (const p of pods) assert.equal(p.user.username, 'system:kube-controller-manager');
  });

  it('logs at the level the policy file says: configmaps with their bodies, the rest without', async () => {
    await kubectl.ok('create', 'configmap', 'audited', '--from-literal=colour=blue');
    const create = await waitFor('the ConfigMap create', (events) => events.find((e) => e.verb === 'create' && e.objectRef?.name === 'audited'));
    assert.equal(create.level, 'RequestResponse');
    assert.deepEqual(create.requestObject?.data, { colour: 'blue' });
    assert.match(create.responseObject?.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    const deploymentGet = await waitFor('a Metadata event', (events) => events.find((e) => e.objectRef?.resource === 'deployments'));
    assert.equal(deploymentGet.requestObject, undefined);
    const probes = (await lines()).filter((e) => e.objectRef === undefined && e.verb === 'get' && e.user.username === '' );
    assert.deepEqual(probes, [], 'health probes are at level None');
  });

  it('logs a request refused by authentication with its 401', async () => {
    const ca = readFileSync(join(cluster.workDir, 'data', 'pki', 'ca.crt'), 'utf8');
    const server = /server: (\S+)/.exec(readFileSync(cluster.kubeconfig, 'utf8'))?.[1] ?? '';
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server}/api/v1/namespaces/default/secrets`, { ca, headers: { authorization: 'Bearer not-a-token' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 401);
    const refused = await waitFor('the 401', (events) => events.find((e) => e.responseStatus?.code === 401 && e.objectRef?.resource === 'secrets'));
    assert.equal(refused.stage, 'ResponseStarted');
    assert.equal(refused.user.username, '');
  });
});

describe('audit flags', { timeout: 60_000 }, () => {
  it('refuses a log path without a policy, and a policy file with a mistake, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k8ts-audit-flags-'));
    try {
      const base = ['apiserver', '--data-dir', join(dir, 'data'), '--secure-port', '0'];
      const noPolicy = await runK8ts([...base, '--audit-log-path', join(dir, 'audit.log')]);
      assert.notEqual(noPolicy.code, 0);
      assert.match(noPolicy.output, /--audit-log-path needs --audit-policy-file/);
      const bad = join(dir, 'bad.yaml');
      await writeFile(bad, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
      const badPolicy = await runK8ts([...base, '--audit-log-path', join(dir, 'audit.log'), '--audit-policy-file', bad]);
      assert.notEqual(badPolicy.code, 0);
      assert.match(badPolicy.output, /rules\[0\]\.level: must be one of None, Metadata, Request, RequestResponse/);
      assert.doesNotMatch(badPolicy.output, /    at /, 'no stack trace');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
