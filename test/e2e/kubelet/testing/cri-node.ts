/**
 * A worker node on a real containerd, for tests: a network namespace of its
 * own (made by the private containerd helper) holds containerd, the CNI
 * bridge of its pods and the kubelet, as if it were another machine. Its only
 * ways out are loopback forwards (test/e2e/testing/netns-link.ts): the
 * kubelet reaches the API server at 127.0.0.1:<port> inside the namespace,
 * and the API server reaches the kubelet at the node's address (a 127.x
 * address of its own) on the machine. No traffic leaves loopback or the
 * namespace.
 *
 * The node's credentials are issued from the server's CA, as a cluster admin
 * would for a joining machine: a client certificate for system:node:NAME
 * (group system:nodes) and a serving certificate for the node's address.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueClientCertificate, issueServingCertificate, loadCertificateAuthority } from '../../../../src/cmd/pki/certificates.js';
import { writeKubeconfig } from '../../../../src/cmd/pki/kubeconfig.js';
import { freePort } from '../../../../src/cmd/network-defaults.js';
import type { OciImageName } from '../../../../src/kubelet/runtime/cri/oci-images.js';
import { startPrivateContainerd, type PrivateContainerd } from '../../testing/containerd.js';
import { startK8ts, type K8tsProcess } from '../../testing/k8ts-process.js';
import { startNetnsLink, type NetnsLink } from '../../testing/netns-link.js';

export interface CriNodeOptions {
  /** The `k8ts server` data directory (its pki/ca.crt and pki/ca.key sign the node's certificates). */
  readonly serverDataDir: string;
  /** The API server's port on the machine's 127.0.0.1. */
  readonly apiServerPort: number;
  readonly nodeName: string;
  /** More kubelet flags (short timers). */
  readonly kubeletArgs?: readonly string[];
  /** Static pod manifests (--pod-manifest-path), if any. */
  readonly podManifestPath?: string;
  /** Images to build and import into the node's containerd (default: busybox and pause). */
  readonly images?: readonly OciImageName[];
  /**
   * A containerd already started with pod networks (startPrivateContainerd), e.g. while the server was starting: the
   * node takes it over (stop() stops it). Default: the node starts its own.
   */
  readonly containerd?: PrivateContainerd;
  /**
   * Run `k8ts proxy` in the node's namespace too, with the server's proxy identity (<server-data-dir>/pki/proxy.kubeconfig),
   * --hostname-override the node's name and these flags (e.g. --proxy-mode iptables).
   */
  readonly proxyArgs?: readonly string[];
  /**
   * The Service range, routed in the namespace to its loopback device: a locally sent packet needs a route before the
   * proxy's rules rewrite its destination (a real node has its default route), and the namespace has no default
   * route. Default: none.
   */
  readonly serviceClusterIPRange?: string;
  /**
   * Run the cluster DNS in the node's namespace as upstream's node-local DNS (NodeLocal DNSCache) runs on a node:
   * `k8ts dns` with the server's DNS identity (<server-data-dir>/pki/dns.kubeconfig, system:coredns) listening on port 53
   * of this link-local address (upstream's is 169.254.20.10), a local address of the namespace (upstream puts it on a
   * dummy interface, nodelocaldns; kernels without the dummy device type have loopback), and the kubelet's
   * --cluster-dns set to it (upstream's setting for node-local DNS with kube-proxy in IPVS mode). Pods reach it through their default route (the bridge's gateway): it is an
   * address of their node. Upstream's other layout, a kube-dns Service whose cluster IP kube-proxy routes to CoreDNS
   * pods, fits less well: `k8ts dns` is a process on the node, not a pod, so that Service would need a hand-written
   * EndpointSlice naming a node address; a listener on the node itself, as node-local DNS has, needs no Service and no
   * rule. Default: no cluster DNS (pods get the host's resolv.conf, with a MissingClusterDNS event).
   */
  readonly nodeLocalDns?: { readonly address: string; readonly clusterDomain?: string };
}

export interface CriNode {
  readonly nodeName: string;
  /** The node's address: the kubelet listens on it, inside the namespace and (forwarded) on the machine. */
  readonly nodeIP: string;
  readonly containerd: PrivateContainerd;
  /** The kubelet's --root-dir. */
  readonly rootDir: string;
  /** The kubelet running now. */
  kubelet(): K8tsProcess;
  /** The proxy, when options.proxyArgs asked for one. */
  readonly proxy: K8tsProcess | undefined;
  /** The node-local cluster DNS, when options.nodeLocalDns asked for one (ready: its informers have synced). */
  readonly dns: K8tsProcess | undefined;
  /** The network namespace of the node (a name under /run/netns). */
  readonly netns: string;
  /** Start the kubelet again after it stopped (or was killed), with the same flags. */
  startKubelet(): K8tsProcess;
  stop(): Promise<void>;
}

const run = promisify(execFile);

/** A 127.x address unlikely to be taken by another test on this machine. */
function randomLoopbackAddress(): string {
  const byte = (): number => 1 + Math.floor(Math.random() * 250);
  return `127.${100 + Math.floor(Math.random() * 100)}.${byte()}.${byte()}`;
}

async function issueNodeCredentials(options: { serverDataDir: string; dir: string; nodeName: string; nodeIP: string; apiServerPort: number }): Promise<{ kubeconfig: string; cert: string; key: string; ca: string }> {
  const pki = join(options.serverDataDir, 'pki');
  const caCertPem = await readFile(join(pki, 'ca.crt'), 'utf8');
  const ca = await loadCertificateAuthority(caCertPem, await readFile(join(pki, 'ca.key'), 'utf8'));
  const client = await issueClientCertificate(ca, { commonName: `system:node:${options.nodeName}`, organizations: ['system:nodes'] });
  const serving = await issueServingCertificate(ca, { commonName: `system:node:${options.nodeName}`, dnsNames: [options.nodeName], ipAddresses: [options.nodeIP] });
  const kubeconfig = join(options.dir, 'kubelet.kubeconfig');
  await writeKubeconfig(kubeconfig, {
    serverUrl: `https://127.0.0.1:${options.apiServerPort}`,
    caCertPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
    userName: `system:node:${options.nodeName}`,
  });
  const cert = join(options.dir, 'kubelet-serving.crt');
  const key = join(options.dir, 'kubelet-serving.key');
  const caFile = join(options.dir, 'ca.crt');
  await writeFile(cert, serving.certPem);
  await writeFile(key, serving.keyPem, { mode: 0o600 });
  await writeFile(caFile, caCertPem);
  return { kubeconfig, cert, key, ca: caFile };
}

export async function startCriNode(options: CriNodeOptions): Promise<CriNode> {
  const dir = await mkdtemp(join(tmpdir(), `k8ts-cri-node-`));
  const rootDir = join(dir, 'kubelet');
  await mkdir(rootDir, { recursive: true });
  let containerd: PrivateContainerd | undefined = options.containerd;
  let link: NetnsLink | undefined;
  let current: K8tsProcess | undefined;
  let proxy: K8tsProcess | undefined;
  let dns: K8tsProcess | undefined;
  const stop = async (): Promise<void> => {
    const problems: unknown[] = [];
    const attempt = async (step: () => Promise<unknown>): Promise<void> => {
      try {
        await step();
      } catch (e: unknown) {
        problems.push(e);
      }
    };
    if (current !== undefined) await attempt(() => current!.stop());
    if (proxy !== undefined) await attempt(() => proxy!.stop());
    if (dns !== undefined) await attempt(() => dns!.stop());
    await attempt(async () => link?.stop());
    // Sandboxes and containers through the CRI, then containerd, its cgroups and the namespace.
    await attempt(async () => containerd?.stop());
    await rm(dir, { recursive: true, force: true });
    if (problems.length > 0) throw new AggregateError(problems, `stopping the cri node ${options.nodeName}`);
  };
  try {
    containerd ??= await startPrivateContainerd(options.images !== undefined ? { images: options.images } : {});
    const netns = containerd.netns!;
    const nodeIP = randomLoopbackAddress();
    const kubeletPort = await freePort(nodeIP);
    link = await startNetnsLink(netns);
    await link.outbound({ listenHost: '127.0.0.1', listenPort: options.apiServerPort, targetHost: '127.0.0.1', targetPort: options.apiServerPort });
    await link.inbound({ listenHost: nodeIP, listenPort: kubeletPort, targetHost: nodeIP, targetPort: kubeletPort });
    const credentials = await issueNodeCredentials({ serverDataDir: options.serverDataDir, dir, nodeName: options.nodeName, nodeIP, apiServerPort: options.apiServerPort });
    const args = [
      'kubelet',
      '--kubeconfig', credentials.kubeconfig,
      '--node-name', options.nodeName,
      '--node-ip', nodeIP,
      '--port', String(kubeletPort),
      '--root-dir', rootDir,
      '--tls-cert-file', credentials.cert,
      '--tls-private-key-file', credentials.key,
      '--client-ca-file', credentials.ca,
      '--container-runtime', 'cri',
      '--container-runtime-endpoint', containerd.endpoint,
      ...(options.podManifestPath !== undefined ? ['--pod-manifest-path', options.podManifestPath] : []),
      ...(options.nodeLocalDns !== undefined ? ['--cluster-dns', options.nodeLocalDns.address, '--cluster-domain', options.nodeLocalDns.clusterDomain ?? 'cluster.local'] : []),
      ...(options.kubeletArgs ?? []),
    ];
    if (options.nodeLocalDns !== undefined) {
      // Started before the kubelet, and ready (below) before any test pod can ask it.
      const { address, clusterDomain = 'cluster.local' } = options.nodeLocalDns;
      await run('ip', ['-n', netns, 'addr', 'add', `${address}/32`, 'dev', 'lo']);
      const dnsKubeconfig = join(options.serverDataDir, 'pki', 'dns.kubeconfig');
      dns = startK8ts(['dns', '--kubeconfig', dnsKubeconfig, '--bind-address', address, '--port', '53', '--cluster-domain', clusterDomain, '--metrics-bind-address', '127.0.0.1:0'], { netns });
    }
    const startKubelet = (): K8tsProcess => {
      current = startK8ts(args, { netns });
      return current;
    };
    startKubelet();
    await dns?.waitForLine(/^dns: informers synced; ready$/, 60_000);
    if (options.serviceClusterIPRange !== undefined) {
      await run('ip', ['-n', netns, 'route', 'add', options.serviceClusterIPRange, 'dev', 'lo']);
    }
    if (options.proxyArgs !== undefined) {
      const proxyKubeconfig = join(options.serverDataDir, 'pki', 'proxy.kubeconfig');
      proxy = startK8ts(['proxy', '--kubeconfig', proxyKubeconfig, '--hostname-override', options.nodeName, '--metrics-bind-address', '127.0.0.1:0', ...options.proxyArgs], { netns });
    }
    const started = containerd;
    return { nodeName: options.nodeName, nodeIP, containerd: started, rootDir, kubelet: () => current!, proxy, dns, netns, startKubelet, stop };
  } catch (e: unknown) {
    await stop().catch(() => undefined);
    throw e;
  }
}
