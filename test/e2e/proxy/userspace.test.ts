/**
 * The userspace kube-proxy under a real `k8ts server` with its kubelet (the
 * process runtime: pods and Service IPs are loopback addresses): three busybox
 * httpd replicas behind a ClusterIP Service, each answering its pod name.
 *
 * The readiness case is checked by ordering, not by timing: after the
 * EndpointSlice marking a pod not ready is written, the test waits for the
 * proxy's log line "applied EndpointSlice" with that revision (or a later
 * one), and from then on no new connection may reach the pod.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { runK8ts, startK8ts } from '../testing/k8ts-process.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

/** GET http://ip:port/ on a new connection: the body, trimmed; throws when the connection fails. */
function fetchName(ip: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get({ host: ip, port, path: '/', agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body.trim()));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

const attempt = async (ip: string, port: number): Promise<string> => fetchName(ip, port).catch((e: unknown) => `error: ${(e as { code?: string }).code ?? String(e)}`);

interface SliceLine {
  readonly msg: string;
  readonly slice?: string;
  readonly resourceVersion?: string;
}

describe('the userspace kube-proxy of k8ts server', { timeout: 300_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let dataDir: string;
  let www: string;

  const until = (description: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> =>
    waitFor(check, { timeoutMs, intervalMs: 200, description });
  const apply = (object: unknown): Promise<string> => withStdin(kubectl, cluster.kubeconfig, JSON.stringify(object)).ok('apply', '-f', '-');
  const field = async (what: string, path: string): Promise<string> => {
    const r = await kubectl('get', ...what.split(' '), '-o', `jsonpath={${path}}`);
    return r.code === 0 ? r.stdout.trim() : '';
  };
  const proxyLog = async (): Promise<SliceLine[]> =>
    (await readFile(join(dataDir, 'logs', 'proxy.log'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as SliceLine);
  /** Names answering over `n` new connections to ip:port. */
  const names = async (ip: string, port: number, n: number): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(await attempt(ip, port));
    return out;
  };
  interface SliceView {
    metadata: { name: string; namespace: string; resourceVersion: string };
    endpoints?: { targetRef?: { name?: string }; conditions?: { ready?: boolean } }[];
  }
  const slicesOf = async (service: string): Promise<SliceView[]> =>
    (JSON.parse(await kubectl.ok('get', 'endpointslices', '-l', `kubernetes.io/service-name=${service}`, '-o', 'json')) as { items: SliceView[] }).items;
  /** Resolves once the proxy logged a revision of `slice` at or after `resourceVersion`. */
  const proxyApplied = (slice: SliceView): Promise<void> =>
    until(`the proxy applying ${slice.metadata.name}@${slice.metadata.resourceVersion}`, async () =>
      (await proxyLog()).some(
        (l) => l.msg === 'applied EndpointSlice' && l.slice === `${slice.metadata.namespace}/${slice.metadata.name}` && BigInt(l.resourceVersion ?? '0') >= BigInt(slice.metadata.resourceVersion),
      ),
    );

  let clusterIP: string;
  let pods: string[];

  before(async () => {
    cluster = await startCluster('proxy-userspace', { agent: true });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    dataDir = join(cluster.workDir, 'data');
    www = join(cluster.workDir, 'www');
    const image = await runK8ts(['image', 'build', 'busybox', '--data-dir', dataDir], 120_000);
    assert.equal(image.code, 0, image.output);
    await cluster.server.waitForLine(/^proxy: node /, 60_000);
  });
  after(() => cluster?.stop());

  it('reaches all three replicas of a Deployment through the Service IP', async () => {
    const script = 'mkdir -p "$WWW/$POD_NAME" && echo "$POD_NAME" > "$WWW/$POD_NAME/index.html" && touch "$WWW/$POD_NAME/ready" && exec httpd -f -p "$POD_IP:8080" -h "$WWW/$POD_NAME"';
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'httpd',
                image: 'busybox:1.35',
                command: ['sh', '-c', script],
                env: [
                  { name: 'WWW', value: www },
                  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                ],
                ports: [{ containerPort: 8080, name: 'http' }],
                readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 1, failureThreshold: 1 },
              },
            ],
          },
        },
      },
    });
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    await kubectl.ok('rollout', 'status', 'deployment/web', '--timeout=120s');
    clusterIP = await field('service web', '.spec.clusterIP');
    assert.match(clusterIP, /^127\./);
    pods = (await field('pods -l app=web', '.items[*].metadata.name')).split(' ').sort();
    assert.equal(pods.length, 3);
    const seen = new Set<string>();
    await until('all three pods answering through the Service IP', async () => {
      for (const name of await names(clusterIP, 80, 3)) seen.add(name);
      return pods.every((p) => seen.has(p));
    });
  });

  it('sends no new connection to a pod once the proxy applied the slice marking it not ready, and sends them again when ready', async () => {
    const victim = pods[0]!;
    await kubectl.ok('exec', victim, '--', 'rm', join(www, victim, 'ready'));
    let notReady: SliceView | undefined;
    await until('the slice marking the pod not ready', async () => {
      notReady = (await slicesOf('web')).find((s) => s.endpoints?.some((e) => e.targetRef?.name === victim && e.conditions?.ready === false));
      return notReady !== undefined;
    });
    await proxyApplied(notReady!);
    const answers = await names(clusterIP, 80, 12);
    assert.ok(!answers.includes(victim), `${victim} answered after the proxy applied ${notReady!.metadata.resourceVersion}: ${answers.join(', ')}`);
    assert.ok(answers.every((a) => pods.includes(a)), answers.join(', '));

    await kubectl.ok('exec', victim, '--', 'touch', join(www, victim, 'ready'));
    await until('the pod answering again', async () => (await names(clusterIP, 80, 3)).includes(victim));
  });

  it('follows the Deployment when it is scaled', async () => {
    await kubectl.ok('scale', 'deployment/web', '--replicas=1');
    await until('one endpoint left in the slice', async () => (await slicesOf('web')).flatMap((s) => s.endpoints ?? []).length === 1);
    const [slice] = await slicesOf('web');
    await proxyApplied(slice!);
    const remaining = slice!.endpoints![0]!.targetRef!.name!;
    assert.deepEqual(new Set(await names(clusterIP, 80, 5)), new Set([remaining]));
    await kubectl.ok('scale', 'deployment/web', '--replicas=2');
    await kubectl.ok('rollout', 'status', 'deployment/web', '--timeout=120s');
    const seen = new Set<string>();
    await until('two pods answering', async () => {
      for (const name of await names(clusterIP, 80, 2)) if (!name.startsWith('error')) seen.add(name);
      return seen.size === 2;
    });
  });

  it('serves a NodePort on the node address 127.0.0.1', async () => {
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-np' }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    const nodePort = Number(await field('service web-np', '.spec.ports[0].nodePort'));
    assert.ok(nodePort >= 30000 && nodePort <= 32767, String(nodePort));
    await until('an answer on the node port', async () => (await attempt('127.0.0.1', nodePort)).startsWith('web-'));
  });

  it('closes the listeners of a deleted Service', async () => {
    await kubectl.ok('delete', 'service', 'web');
    await until('the Service IP refusing connections', async () => (await attempt(clusterIP, 80)) === 'error: ECONNREFUSED');
  });

  it('serves upstream\'s sync metrics and the applied slice revisions on /metrics', async () => {
    const line = await cluster.server.waitForLine(/^proxy: node .*\/metrics on http:\/\/127\.0\.0\.1:\d+/);
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(line)![1]);
    const [slice] = await slicesOf('web-np');
    await proxyApplied(slice!);
    const metrics = await new Promise<string>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
    assert.match(metrics, /^kubeproxy_sync_proxy_rules_duration_seconds_count [1-9]/m);
    assert.match(metrics, /^kubeproxy_sync_proxy_rules_last_timestamp_seconds \d/m);
    assert.match(metrics, new RegExp(`^k8ts_proxy_endpointslice_applied_resource_version\\{slice="default/${slice!.metadata.name}"\\} \\d+`, 'm'));
  });

  it('a second proxy on the same machine says the addresses are taken, and keeps running', async () => {
    const second = startK8ts([
      'proxy',
      '--kubeconfig',
      join(dataDir, 'pki', 'proxy.kubeconfig'),
      '--hostname-override',
      'second-node',
      '--bind-address',
      '127.0.0.1',
      '--metrics-bind-address',
      '127.0.0.1:0',
    ]);
    try {
      const line = await second.waitForLine(/web-np.*already in use/, 60_000);
      assert.match(line, /cannot listen on 127\.[\d.]+:80\/TCP: the address is already in use \(another proxy on this machine\? a second node on one machine runs with --disable-proxy\)/);
      assert.equal(second.child.exitCode, null);
    } finally {
      assert.equal(await second.stop(), 0);
    }
    await until('the first proxy still serving', async () => (await attempt(await field('service web-np', '.spec.clusterIP'), 80)).startsWith('web-'));
  });

  it('a proxy killed with SIGKILL is restarted by the supervisor and serves the same Services', async () => {
    const started = /^proxy: started \(pid (\d+)\)/m;
    const pid = Number(started.exec(cluster.server.output())![1]);
    const npIP = await field('service web-np', '.spec.clusterIP');
    const nodePort = Number(await field('service web-np', '.spec.ports[0].nodePort'));
    process.kill(pid, 'SIGKILL');
    await until('a new proxy process', () => [...cluster.server.output().matchAll(/^proxy: started \(pid (\d+)\)/gm)].some((m) => Number(m[1]) !== pid));
    await until('the node port answering again', async () => (await attempt('127.0.0.1', nodePort)).startsWith('web-'));
    await until('the cluster IP answering again', async () => (await attempt(npIP, 80)).startsWith('web-'));
    assert.equal(await attempt(clusterIP, 80), 'error: ECONNREFUSED');
  });
});
