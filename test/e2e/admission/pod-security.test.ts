/**
 * PodSecurity through the real pipeline with real kubectl: a namespace
 * labelled enforce=restricted refuses a privileged pod with upstream's exact
 * message and stores nothing, admits a compliant pod, and warns (never
 * refuses) on a Deployment's template; a warn-level namespace admits with
 * kubectl's Warning line and an audit annotation; invalid labels are refused
 * and tightening the enforce level warns about the pods already there.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';
import { ensureDefaultServiceAccount } from '../testing/service-accounts.js';

const RESTRICTED_DETAIL =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

const pod = (name: string, namespace: string, securityContext: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext }] } });

const PRIVILEGED = { privileged: true };
const COMPLIANT = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

/** Wait for a condition, polling until a deadline (no fixed sleeps). */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('PodSecurity admission', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  const create = (manifest: string) => withStdin(kubectl, cluster.kubeconfig, manifest)('create', '-f', '-');

  before(async () => {
    // The API server alone, with k8ts server's audit log; no ServiceAccount controller, so the test makes each `default`.
    cluster = await startLeanCluster('pod-security', { auditLog: true });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    await kubectl.ok('create', 'namespace', 'ps-enforce');
    await kubectl.ok('create', 'namespace', 'ps-warn');
    await ensureDefaultServiceAccount(kubectl, 'ps-enforce');
    await ensureDefaultServiceAccount(kubectl, 'ps-warn');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('labels a namespace enforce=restricted', async () => {
    assert.equal(await kubectl.ok('label', 'ns', 'ps-enforce', 'pod-security.kubernetes.io/enforce=restricted'), 'namespace/ps-enforce labeled\n');
  });

  it('refuses a privileged pod with upstream\'s message and stores nothing', async () => {
    const r = await create(pod('priv', 'ps-enforce', PRIVILEGED));
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}\n`);
    const get = await kubectl('get', 'pod', 'priv', '-n', 'ps-enforce');
    assert.equal(get.code, 1);
    assert.equal(get.stderr, 'Error from server (NotFound): pods "priv" not found\n');
  });

  it('names a generated pod name in the refusal', async () => {
    const manifest = JSON.parse(pod('', 'ps-enforce', PRIVILEGED)) as { metadata: Record<string, string> };
    manifest.metadata = { generateName: 'gen-', namespace: 'ps-enforce' };
    const r = await create(JSON.stringify(manifest));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error from server \(Forbidden\): error when creating "STDIN": pods "gen-[a-z0-9]{5}" is forbidden: violates PodSecurity "restricted:latest": privileged /);
    assert.equal(await kubectl.ok('get', 'pods', '-n', 'ps-enforce', '-o', 'name'), '');
  });

  it('admits a compliant pod without warnings', async () => {
    const r = await create(pod('ok', 'ps-enforce', COMPLIANT));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'pod/ok created\n');
    assert.equal(r.stderr, '');
  });

  it('warns on a Deployment whose template violates the level, and creates it', async () => {
    const r = await kubectl('create', 'deployment', 'web', '--image=nginx', '-n', 'ps-enforce');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'deployment.apps/web created\n');
    assert.equal(
      r.stderr,
      'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")\n',
    );
  });

  it('admits a violating pod in a warn-level namespace with kubectl\'s Warning line and an audit annotation', async () => {
    await kubectl.ok('label', 'ns', 'ps-warn', 'pod-security.kubernetes.io/warn=baseline', 'pod-security.kubernetes.io/audit=restricted');
    const r = await create(pod('priv', 'ps-warn', PRIVILEGED));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'pod/priv created\n');
    assert.equal(r.stderr, 'Warning: would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)\n');
    const auditLog = join(cluster.workDir, 'data', 'logs', 'audit.log');
    const annotations = await eventually('the audit event of the pod create', async () => {
      const text = await readFile(auditLog, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const e = JSON.parse(line) as { stage?: string; verb?: string; objectRef?: { resource?: string; namespace?: string; name?: string }; annotations?: Record<string, string> };
        if (e.stage === 'ResponseComplete' && e.verb === 'create' && e.objectRef?.resource === 'pods' && e.objectRef.namespace === 'ps-warn' && e.objectRef.name === 'priv') return e.annotations ?? {};
      }
      return undefined;
    });
    assert.equal(annotations['pod-security.kubernetes.io/enforce-policy'], 'privileged:latest');
    assert.equal(annotations['pod-security.kubernetes.io/audit-violations'], `would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`);
  });

  it('refuses an invalid level label with upstream\'s 422', async () => {
    const r = await kubectl('label', 'ns', 'ps-warn', 'pod-security.kubernetes.io/enforce=bogus');
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'The Namespace "ps-warn" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted\n',
    );
  });

  it('warns about existing pods when the enforce level tightens', async () => {
    const r = await kubectl('label', 'ns', 'ps-warn', 'pod-security.kubernetes.io/enforce=baseline');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'namespace/ps-warn labeled\n');
    assert.equal(r.stderr, 'Warning: existing pods in namespace "ps-warn" violate the new PodSecurity enforce level "baseline:latest"\nWarning: priv: privileged\n');
  });
});
