/**
 * A "node" and its "pods" as network namespaces, for tests of the netfilter
 * proxy modes: the test creates every namespace itself and deletes them all
 * in destroy(), so no rule and no packet ever touches the machine's own
 * namespace.
 *
 *   client netns  eth0 10.250.0.2 ─┐
 *                                  │ veth
 *   node netns    vethc 10.250.0.1 ┘   vethI 10.244.(I+1).1 ─── eth0 10.244.(I+1).2  pod I netns
 *                 default route via the client (so that service IPs, 10.96.0.0/12, are routable before DNAT)
 *
 * Pods route everything through the node (default gateway), the node
 * forwards (ip_forward=1 inside its namespace), so a NodePort reached from
 * the client crosses the node as it would on a real one. Processes are
 * started inside a namespace with `nsenter --net=/run/netns/NAME` and stopped
 * by their pid.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const CLUSTER_CIDR = '10.244.0.0/16';

/** Why these tests cannot run here (not root, no network namespaces, no iptables), or undefined. */
export async function netnsUnavailableReason(): Promise<string | undefined> {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'creating network namespaces and iptables rules needs root';
  const probe = `k8ts-probe-${randomBytes(3).toString('hex')}`;
  try {
    await exec('ip', ['netns', 'add', probe]);
  } catch (err) {
    return `cannot create a network namespace (ip netns add): ${(err as Error).message.split('\n')[0]}`;
  }
  try {
    await exec('nsenter', [`--net=/run/netns/${probe}`, '--', 'iptables-restore', '--version']);
  } catch (err) {
    return `iptables-restore does not run inside a network namespace: ${(err as Error).message.split('\n')[0]}`;
  } finally {
    await exec('ip', ['netns', 'del', probe]).catch(() => undefined);
  }
  return undefined;
}

export interface PodNamespace {
  readonly name: string;
  readonly netns: string;
  readonly ip: string;
  /** The node's address on this pod's link. */
  readonly gateway: string;
}

export interface PodNetwork {
  /** The node's namespace: the proxier under test programs this one. */
  readonly node: string;
  readonly pods: readonly PodNamespace[];
  /** A machine outside the cluster, one link away from the node. */
  readonly client: PodNamespace;
  /** Runs `argv` inside `netns` and returns its stdout (rejects on a non-zero exit). */
  run(netns: string, argv: readonly string[]): Promise<string>;
  /** Starts a long-running process inside `netns`; destroy() stops it. */
  start(netns: string, argv: readonly string[]): ChildProcess;
  /** Stops every process started here, then deletes every namespace (and so every veth and rule in them). */
  destroy(): Promise<void>;
}

export async function createPodNetwork(options: { readonly pods: number }): Promise<PodNetwork> {
  const id = randomBytes(3).toString('hex');
  const node = `k8ts-${id}-node`;
  const namespaces: string[] = [];
  const children: ChildProcess[] = [];
  const ip = async (...args: string[]): Promise<void> => {
    await exec('ip', args);
  };
  const addNetns = async (name: string): Promise<void> => {
    await ip('netns', 'add', name);
    namespaces.push(name);
    await ip('-n', name, 'link', 'set', 'lo', 'up');
  };
  const link = async (nodeDevice: string, peer: string, subnet: string): Promise<PodNamespace> => {
    const gateway = `${subnet}.1`;
    const address = `${subnet}.2`;
    await ip('-n', node, 'link', 'add', nodeDevice, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', peer);
    await ip('-n', node, 'addr', 'add', `${gateway}/24`, 'dev', nodeDevice);
    await ip('-n', node, 'link', 'set', nodeDevice, 'up');
    await ip('-n', peer, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
    await ip('-n', peer, 'link', 'set', 'eth0', 'up');
    await ip('-n', peer, 'route', 'add', 'default', 'via', gateway);
    return { name: peer, netns: peer, ip: address, gateway };
  };
  const network: PodNetwork = {
    node,
    pods: [],
    client: { name: '', netns: '', ip: '', gateway: '' },
    run: async (netns, argv) => {
      const [file, ...args] = argv;
      const { stdout } = await exec('nsenter', [`--net=/run/netns/${netns}`, '--', file ?? 'true', ...args]);
      return stdout;
    },
    start: (netns, argv) => {
      const child = spawn('nsenter', [`--net=/run/netns/${netns}`, '--', ...argv], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(child);
      return child;
    },
    destroy: async () => {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
          const exited = new Promise((r) => child.once('exit', r));
          process.kill(child.pid, 'SIGKILL');
          await exited;
        }
      }
      for (const name of namespaces.splice(0).reverse()) await ip('netns', 'del', name).catch(() => undefined);
    },
  };
  try {
    await addNetns(node);
    await network.run(node, ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    const pods: PodNamespace[] = [];
    for (let i = 0; i < options.pods; i++) {
      const netns = `k8ts-${id}-pod${i}`;
      await addNetns(netns);
      pods.push({ ...(await link(`veth${i}`, netns, `10.244.${i + 1}`)), name: `pod-${i}` });
    }
    const clientNetns = `k8ts-${id}-client`;
    await addNetns(clientNetns);
    // Outside the cluster CIDR, as a client on another network is.
    const client = { ...(await link('vethc', clientNetns, '10.250.0')), name: 'client' };
    // The node's default route leads out through the client, as a real node's does: without a route,
    // connect() to a service IP fails before netfilter's OUTPUT hook can rewrite it.
    await ip('-n', node, 'route', 'add', 'default', 'via', client.ip);
    return { ...network, pods, client };
  } catch (err) {
    await network.destroy();
    throw err;
  }
}

/**
 * Calls `onLine` with each stdout line of a child after the first, and
 * resolves with the first one (e.g. "listening"); rejects if it exits first.
 */
function linesOf(child: ChildProcess, onLine: (line: string) => void = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    let first = true;
    const onExit = (code: number | null): void => reject(new Error(`process exited (${code}) before it was ready`));
    child.once('exit', onExit);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!first) return onLine(line);
      first = false;
      child.off('exit', onExit);
      resolve(line);
    });
  });
}

const LISTENER = `
const net = require('net');
const [name, port] = process.argv.slice(1);
net.createServer((s) => s.end(name + ' ' + s.remoteAddress + '\\n')).listen(Number(port), '0.0.0.0', () => console.log('listening'));
`;

/** A TCP server in the pod's namespace that answers "<pod name> <client address>" and closes. */
export async function startAnswerer(network: PodNetwork, pod: PodNamespace, port: number): Promise<void> {
  await linesOf(network.start(pod.netns, [process.execPath, '-e', LISTENER, pod.name, String(port)]));
}

const PROBER = `
const net = require('net');
const lines = require('readline').createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const q = JSON.parse(line);
  const socket = net.connect({ host: q.host, port: q.port });
  let data = '';
  let done = false;
  const finish = (r) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    socket.destroy();
    process.stdout.write(JSON.stringify({ id: q.id, ...r }) + '\\n');
  };
  const timer = setTimeout(() => finish({ error: 'ETIMEDOUT' }), q.timeoutMs);
  socket.setEncoding('utf8');
  socket.on('data', (c) => (data += c));
  socket.on('end', () => finish({ answer: data.trim() }));
  socket.on('error', (e) => finish({ error: e.code || e.message }));
});
console.log('ready');
`;

export interface ConnectResult {
  /** What the server sent before closing. */
  readonly answer?: string;
  /** The connect error code (ECONNREFUSED, ETIMEDOUT, …). */
  readonly error?: string;
}

export interface Prober {
  /** One TCP connection from inside the prober's namespace. */
  connect(host: string, port: number, timeoutMs?: number): Promise<ConnectResult>;
}

/** A process inside `netns` that opens TCP connections on request (one node start for many connections). */
export async function startProber(network: PodNetwork, netns: string): Promise<Prober> {
  const child = network.start(netns, [process.execPath, '-e', PROBER]);
  const pending = new Map<number, (r: ConnectResult) => void>();
  await linesOf(child, (line) => {
    const r = JSON.parse(line) as ConnectResult & { id: number };
    pending.get(r.id)?.(r.error === undefined ? { answer: r.answer ?? '' } : { error: r.error });
    pending.delete(r.id);
  });
  let next = 0;
  return {
    connect: (host, port, timeoutMs = 5000) =>
      new Promise((resolve) => {
        const id = next++;
        pending.set(id, resolve);
        child.stdin!.write(`${JSON.stringify({ id, host, port, timeoutMs })}\n`);
      }),
  };
}

/** iptables-save of a namespace without its timestamps and counters, for comparisons. */
export async function savedRules(network: PodNetwork, netns: string): Promise<string> {
  const out = await network.run(netns, ['iptables-save']);
  return out
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/\[\d+:\d+\]$/, '[0:0]'))
    .join('\n');
}
