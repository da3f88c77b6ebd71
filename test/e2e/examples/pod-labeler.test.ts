/**
 * The example controller of examples/pod-labeler, run as a user would run it
 * (its own process, `k8ts/client` imports, the admin kubeconfig) against a
 * real `k8ts apiserver`: a pod bound to a node gets the node's label, the
 * label follows a re-created pod, and a second copy with --leader-elect waits
 * while the first one leads.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { LEASES, PODS, SERVICE_ACCOUNTS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { NODE_LABEL } from '../../../examples/pod-labeler/main.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';

const EXAMPLE = fileURLToPath(new URL('../../../examples/pod-labeler/main.js', import.meta.url));

function startExample(kubeconfig: string, extra: string[] = []): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [EXAMPLE, '--kubeconfig', kubeconfig, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  return { child, output: () => text };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('examples/pod-labeler against k8ts apiserver', () => {
  let dir: string;
  let server: K8tsProcess;
  let client: HttpClient;
  let kubeconfig: string;
  const children: ChildProcess[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-example-'));
    server = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
    await server.waitForLine(/^apiserver: serving on /, 60_000);
    kubeconfig = join(dir, 'admin.kubeconfig');
    client = newHttpClient(restConfigFromKubeconfig(kubeconfig));
    // No controller manager: the test makes the ServiceAccount pods need (ServiceAccount admission).
    await client.resource(SERVICE_ACCOUNTS).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  });

  after(async () => {
    for (const c of children) await stopChild(c);
    client?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const labelOf = async (name: string): Promise<string | undefined> =>
    (await client.resource(PODS).get(name, { namespace: 'default' })).metadata.labels?.[NODE_LABEL];

  it('labels a bound pod with its node, and leaves an unbound one alone', async () => {
    const labeler = startExample(kubeconfig);
    children.push(labeler.child);
    const pods = client.resource(PODS);
    const pod = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    await pods.create(pod('bound'));
    await pods.create(pod('unbound'));
    await pods.createSubresource('bound', 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } }, { namespace: 'default' });
    await waitFor(async () => (await labelOf('bound')) === 'node-a', { timeoutMs: 20_000, description: 'the bound pod labelled node-a' });
    assert.equal(await labelOf('unbound'), undefined);
    assert.match(labeler.output(), /pod-labeler: running/);
  });

  it('with --leader-elect, one copy leads and the other waits until the first stops', async () => {
    const first = startExample(kubeconfig, ['--leader-elect']);
    children.push(first.child);
    await waitFor(() => first.output().includes('pod-labeler: leading'), { timeoutMs: 20_000, description: 'the first copy leading' });
    const second = startExample(kubeconfig, ['--leader-elect']);
    children.push(second.child);
    const lease = await client.resource(LEASES).get('pod-labeler', { namespace: 'default' });
    assert.ok(String((lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity).length > 0);
    await stopChild(first.child); // releases the Lease on SIGTERM
    await waitFor(() => second.output().includes('pod-labeler: leading'), { timeoutMs: 20_000, description: 'the second copy taking over' });
  });
});
