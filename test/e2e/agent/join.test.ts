/**
 * `k8ts agent` joins a second node to `k8ts server` on one machine, as
 * upstream's TLS bootstrap does: the server prints the join command; the agent
 * (node IP 127.0.0.2, its own name and data directory, no proxy) pins the CA
 * by its hash, gets its client and serving certificates through CSRs that the
 * controller manager approves and signs, and runs its kubelet; a pod bound to
 * it runs and `kubectl logs` reaches it (the API server verifies the serving
 * certificate). Wrong hashes and tokens are refused; a restarted agent reuses
 * its credentials; a SIGKILLed agent takes its kubelet with it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { parseJoinCommand, type JoinCommandOptions } from '../../../src/cmd/join/join-command.js';
import { killNodeContainers } from '../kubelet/testing/agent-containers.js';
import { runK8ts, startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

const NODE = 'k8ts-e2e-agent';
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('k8ts agent joins a node to k8ts server', () => {
  let dir: string;
  let server: K8tsProcess | undefined;
  let agent: K8tsProcess | undefined;
  let join_: JoinCommandOptions;
  let kubeconfig: string;
  let kubectl: Kubectl;
  const agentArgs = (): string[] => [
    'agent',
    '--server',
    join_.server,
    '--token',
    join_.token,
    '--ca-cert-hash',
    join_.caCertHash,
    '--data-dir',
    join(dir, 'agent'),
    '--node-name',
    NODE,
    '--node-ip',
    '127.0.0.2',
    '--disable-proxy',
    '--kubelet-arg=--node-status-update-frequency=1s',
  ];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-agent-'));
    server = startK8ts(['server', '--data-dir', join(dir, 'server'), '--secure-port', '0']);
    kubeconfig = (await server.waitForLine(/^export KUBECONFIG=/, 60_000)).slice('export KUBECONFIG='.length);
    const parsed = parseJoinCommand(await server.waitForLine(/^k8ts agent --server /, 5000));
    assert.ok(parsed !== undefined);
    join_ = parsed;
    kubectl = newKubectl('1.32', kubeconfig);
  });

  after(async () => {
    await agent?.stop('SIGTERM');
    await server?.stop('SIGINT');
    await killNodeContainers(join(dir, 'agent', 'kubelet'));
    await killNodeContainers(join(dir, 'server', 'kubelet'));
    await rm(dir, { recursive: true, force: true });
  });

  it('prints its progress in order and a join command with the CA hash', () => {
    const output = server!.output();
    const order = [/^pki: /m, /^store: /m, /^api server: ready at /m, /^join: cluster-info published in kube-public; join token \w{6} made/m, /^node: \S+ Ready$/m, /^export KUBECONFIG=/m, /^k8ts agent --server /m];
    const positions = order.map((p) => output.search(p));
    assert.ok(positions.every((p) => p >= 0), output);
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, output);
    assert.match(join_.server, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses a wrong CA hash, a missing one, and a wrong or malformed token, saying why', async () => {
    const base = (n: number): string[] => ['agent', '--server', join_.server, '--data-dir', join(dir, `refused-${n}`), '--node-name', 'refused', '--node-ip', '127.0.0.3', '--disable-proxy'];
    const wrongHash = `sha256:${'0'.repeat(64)}`;
    const [hash, missing, token, malformed] = await Promise.all([
      runK8ts([...base(1), '--token', join_.token, '--ca-cert-hash', wrongHash]),
      runK8ts([...base(2), '--token', join_.token]),
      runK8ts([...base(3), '--token', 'zzzzzz.zzzzzzzzzzzzzzzz', '--ca-cert-hash', join_.caCertHash]),
      runK8ts([...base(4), '--token', 'nope', '--ca-cert-hash', join_.caCertHash]),
    ]);
    assert.equal(hash.code, 1);
    assert.ok(hash.output.includes(wrongHash) && hash.output.includes(join_.caCertHash), hash.output);
    assert.match(hash.output, /refusing to trust this server/);
    assert.equal(missing.code, 1);
    assert.match(missing.output, /--ca-cert-hash is required/);
    assert.equal(token.code, 1);
    assert.match(token.output, /the server refused the credentials \(401 Unauthorized\): check --token/);
    assert.equal(malformed.code, 1);
    assert.match(malformed.output, /the bootstrap token "nope" was not of the form/);
    assert.doesNotMatch(hash.output + token.output + malformed.output, /\n\s+at /, 'no stack traces');
  });

  it('k8ts token creates, lists and deletes join tokens', async () => {
    const serverDir = join(dir, 'server');
    const created = await runK8ts(['token', 'create', '--data-dir', serverDir, '--ttl', '1h', '--description', 'e2e', '--print-join-command']);
    assert.equal(created.code, 0, created.output);
    const made = parseJoinCommand(created.output);
    assert.deepEqual({ ...made, token: '' }, { ...join_, token: '' }, 'the same server and CA hash as the server printed');
    const listed = await runK8ts(['token', 'list', '--kubeconfig', kubeconfig]);
    const deleted = await runK8ts(['token', 'delete', '--data-dir', serverDir, made!.token.split('.')[0]!, 'qqqqqq']);
    assert.equal(listed.code, 0, listed.output);
    assert.match(listed.output, /^TOKEN +TTL +EXPIRES +USAGES +DESCRIPTION +EXTRA GROUPS$/m);
    assert.ok(listed.output.includes(join_.token), 'the server\'s own token is listed');
    assert.match(listed.output, new RegExp(`^${made!.token.replace('.', '\\.')} +(59m|1h0m)\\S* +\\S+ +authentication,signing +e2e +system:bootstrappers:k8ts:default-node-token$`, 'm'));
    assert.equal(deleted.code, 1, 'the second token does not exist');
    assert.match(deleted.output, /^bootstrap token "\w{6}" deleted$/m);
    assert.match(deleted.output, /error: bootstrap token "qqqqqq" not found/);
  });

  it('joins: its CSRs are approved and issued, its node becomes Ready, and a pod on it runs and shows its logs', async () => {
    agent = startK8ts(agentArgs());
    await agent.waitForLine(new RegExp(`^node: ${NODE} Ready$`), 30_000);
    const csrs = await kubectl.ok('get', 'csr', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,SIGNER:.spec.signerName,USER:.spec.username');
    const rows = csrs.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows.map((r) => r[1]).sort(), ['kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']);
    assert.deepEqual(rows.find((r) => r[1] === 'kubernetes.io/kubelet-serving')?.[2], `system:node:${NODE}`);
    assert.match(rows.find((r) => r[1] === 'kubernetes.io/kube-apiserver-client-kubelet')?.[2] ?? '', /^system:bootstrap:\w{6}$/);
    const table = await kubectl.ok('get', 'csr');
    assert.equal((table.match(/Approved,Issued/g) ?? []).length, 2, table);

    const pod = `apiVersion: v1
kind: Pod
metadata:
  name: on-agent
spec:
  nodeSelector:
    kubernetes.io/hostname: ${NODE}
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox:1.35
    command: ["sh", "-c", "echo hello from the agent; sleep 3600"]
`;
    await withStdin(kubectl, kubeconfig, pod).ok('create', '-f', '-');
    await kubectl.ok('wait', '--for=condition=Ready', 'pod/on-agent', '--timeout=30s');
    assert.equal((await kubectl.ok('get', 'pod', 'on-agent', '-o', 'jsonpath={.spec.nodeName}')).trim(), NODE);
    await waitFor(async () => (await kubectl('logs', 'on-agent')).stdout.includes('hello from the agent'), { timeoutMs: 10_000, intervalMs: 200, description: 'kubectl logs reaches the agent\'s kubelet' });
  });

  it('reuses its credentials when restarted: no new CSR', async () => {
    assert.equal(await agent!.stop('SIGTERM'), 0);
    agent = startK8ts(agentArgs());
    await agent.waitForLine(new RegExp(`^node: ${NODE} Ready$`), 30_000);
    assert.match(agent.output(), /^credentials: reusing the client certificate of system:node:k8ts-e2e-agent/m);
    assert.match(agent.output(), /^credentials: reusing the kubelet serving certificate/m);
    const names = (await kubectl.ok('get', 'csr', '-o', 'name')).trim().split('\n');
    assert.equal(names.length, 2, names.join(' '));
  });

  it('takes its kubelet with it when SIGKILLed, and nothing restarts it', async () => {
    const a = agent!;
    const kubeletPid = Number(/^kubelet: started \(pid (\d+)\)$/m.exec(a.output())?.[1]);
    assert.ok(kubeletPid > 0 && isAlive(kubeletPid));
    const serverKubelets = (server!.output().match(/^kubelet: started/gm) ?? []).length;
    assert.equal(await a.stop('SIGKILL'), 'SIGKILL');
    agent = undefined;
    await waitFor(() => !isAlive(kubeletPid), { timeoutMs: 20_000, intervalMs: 100, description: `the agent's kubelet (pid ${kubeletPid}) exits` });
    assert.equal((server!.output().match(/^kubelet: started/gm) ?? []).length, serverKubelets, 'the server starts no kubelet for the agent');
  });
});
