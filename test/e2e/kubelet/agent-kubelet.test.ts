/**
 * `k8ts kubelet` as a process against a real API server: `k8ts server` starts
 * one for its own node (with short timers through --kubelet-arg), which
 * registers the Node with its labels, becomes Ready once node IPAM gives it a
 * pod CIDR, renews its Lease, and keeps a mirror pod for each static pod of
 * <data-dir>/manifests. A kubelet with no reachable API server still reads
 * its static pods; bad flags fail at once.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { LEASES, NODES, PODS } from '../../../src/client/rest/resources.js';
import { newCertificateAuthority } from '../../../src/cmd/pki/certificates.js';
import type { Node, Pod } from '../../../src/kubelet/types.js';
import { runK8ts, startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { killNodeContainers } from './testing/agent-containers.js';

const NODE = hostname().toLowerCase();

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await read();
      if (value !== undefined) return value;
    } catch (e: unknown) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('k8ts kubelet under k8ts server', { timeout: 240_000 }, () => {
  let root: string;
  let server: K8tsProcess;
  let client: HttpClient;
  let dataDir: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-agent-kubelet-'));
    dataDir = join(root, 'data');
    server = startK8ts([
      'server',
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--kubelet-arg=--node-status-update-frequency=200ms',
      '--kubelet-arg=--node-lease-duration-seconds=2',
      '--kubelet-arg=--file-check-frequency=500ms',
      '--kubelet-arg=--node-labels=example.com/rack=r1',
    ]);
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    client = newHttpClient(restConfigFromKubeconfig(line.slice('export KUBECONFIG='.length).trim()));
  });

  after(async () => {
    client?.close();
    await server?.stop();
    // The kubelet's containers outlive it (as upstream's): end them before the directory goes.
    await killNodeContainers(join(dataDir, 'kubelet'));
    await rm(root, { recursive: true, force: true });
  });

  it('says which runtime the kubelet uses', () => {
    assert.match(server.output(), /kubelet: node \S+, process runtime \(no containerd socket configured\): containers are host processes/);
  });

  it('registers the Node with its labels, the control-plane role and upstream nodeInfo, and it becomes Ready', async () => {
    const nodes = client.resource<Node>(NODES);
    const node = await until(async () => {
      const n = await nodes.get(NODE);
      return n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && n.metadata.labels?.['node-role.kubernetes.io/control-plane'] !== undefined ? n : undefined;
    }, 'a Ready node with the control-plane label', 60_000);
    const labels = node.metadata.labels ?? {};
    assert.equal(labels['kubernetes.io/hostname'], NODE);
    assert.equal(labels['kubernetes.io/os'], 'linux');
    assert.ok(labels['kubernetes.io/arch']);
    assert.equal(labels['beta.kubernetes.io/os'], 'linux');
    assert.equal(labels['example.com/rack'], 'r1');
    assert.equal(labels['node-role.kubernetes.io/control-plane'], '');
    assert.ok(node.spec?.podCIDR, 'node IPAM gave it a pod CIDR');
    assert.deepEqual(node.status?.addresses?.map((a) => a.type), ['InternalIP', 'Hostname']);
    assert.equal(node.status?.addresses?.[0]?.address, '127.0.0.1');
    assert.equal(node.status?.nodeInfo?.kubeletVersion, 'v1.33.0-k8ts.0');
    assert.match(node.status?.nodeInfo?.containerRuntimeVersion ?? '', /^k8ts-process:\/\//);
    assert.equal(node.status?.capacity?.['pods'], '110');
    assert.ok(Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port) >= 0);
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'KubeletReady');
    assert.equal(ready?.message, 'kubelet is posting ready status');
  });

  it('renews its Lease in kube-node-lease, owned by the Node', async () => {
    const leases = client.resource(LEASES);
    const first = await until(() => leases.get(NODE, { namespace: 'kube-node-lease' }), 'the Lease');
    const firstRenew = (first as { spec?: { renewTime?: string } }).spec?.renewTime;
    assert.equal((first as { spec?: { holderIdentity?: string } }).spec?.holderIdentity, NODE);
    assert.equal(first.metadata.ownerReferences?.[0]?.kind, 'Node');
    await until(async () => {
      const l = (await leases.get(NODE, { namespace: 'kube-node-lease' })) as { spec?: { renewTime?: string } };
      return l.spec?.renewTime !== firstRenew ? true : undefined;
    }, 'a renewal');
  });

  it("keeps a mirror pod for a static pod: it appears, comes back when deleted, and goes with the manifest", async () => {
    const manifest = join(dataDir, 'manifests', 'static-web.yaml');
    await writeFile(manifest, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: static-web\n  namespace: kube-system\nspec:\n  containers:\n  - name: web\n    image: busybox\n    command: [sleep, "3600"]\n');
    const pods = client.resource<Pod>(PODS);
    const name = `static-web-${NODE}`;
    const mirror = await until(() => pods.get(name, { namespace: 'kube-system' }), 'the mirror pod');
    assert.ok(mirror.metadata.annotations?.['kubernetes.io/config.mirror']);
    assert.equal(mirror.metadata.annotations?.['kubernetes.io/config.source'], 'file');
    assert.equal(mirror.metadata.ownerReferences?.[0]?.kind, 'Node');
    assert.equal(mirror.spec?.nodeName, NODE);
    await pods.delete(name, { namespace: 'kube-system', gracePeriodSeconds: 0 });
    const again = await until(async () => {
      const p = await pods.get(name, { namespace: 'kube-system' });
      return p.metadata.uid !== mirror.metadata.uid ? p : undefined;
    }, 'the mirror pod made again');
    assert.equal(again.metadata.annotations?.['kubernetes.io/config.mirror'], mirror.metadata.annotations?.['kubernetes.io/config.mirror']);
    await unlink(manifest);
    await until(async () => {
      try {
        await pods.get(name, { namespace: 'kube-system' });
        return undefined;
      } catch (e: unknown) {
        return (e as { code?: number }).code === 404 ? true : undefined;
      }
    }, 'the mirror pod deleted with its manifest');
  });
});

describe('k8ts kubelet alone', { timeout: 120_000 }, () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-agent-kubelet-alone-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads its static pods while no API server can be reached', async () => {
    const manifests = join(root, 'manifests');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(manifests, { recursive: true });
    await writeFile(join(manifests, 'etcd.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: etcd, namespace: kube-system}\nspec:\n  containers: [{name: etcd, image: etcd}]\n');
    const kubeconfig = join(root, 'kubeconfig');
    // Port 1 on loopback: nothing listens there.
    await writeFile(
      kubeconfig,
      'apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n',
    );
    const clientCa = join(root, 'client-ca.crt');
    await writeFile(clientCa, (await newCertificateAuthority()).certPem);
    const kubelet = startK8ts(['kubelet', '--kubeconfig', kubeconfig, '--node-name', 'offline-node', '--root-dir', join(root, 'kubelet'), '--pod-manifest-path', manifests, '--client-ca-file', clientCa, '--port', '0']);
    try {
      await kubelet.waitForLine(/kube-system\/etcd-offline-node.*"msg":"static pods"/);
      assert.match(kubelet.output(), /kubelet: static pods from /);
    } finally {
      assert.equal(await kubelet.stop(), 0);
      await killNodeContainers(join(root, 'kubelet'));
    }
    assert.match(kubelet.output(), /kubelet: stopping \(containers keep running\)/);
  });

  it('fails clearly on bad flags, with exit code 1', async () => {
    const [missing, badIp, badLabel] = await Promise.all([
      runK8ts(['kubelet']),
      runK8ts(['kubelet', '--kubeconfig', 'x', '--node-ip', '999.1.1.1']),
      runK8ts(['kubelet', '--kubeconfig', 'x', '--node-labels', 'node-role.kubernetes.io/worker=']),
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.output, /--kubeconfig is required/);
    assert.equal(badIp.code, 1);
    assert.match(badIp.output, /option '--node-ip <ip>' argument '999.1.1.1' is invalid. invalid IP address "999.1.1.1"/);
    assert.equal(badLabel.code, 1);
    assert.match(badLabel.output, /unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels/);
  });
});
